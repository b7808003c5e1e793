//! `testdeck.toml`'s settings and their parser are the model's
//! ([`testdeck_model::config`], re-exported here); the store reads the file, the
//! runner's `env-files` and which default source folders exist.
//!
//! The three readers are traits on the model's types, so `Config::load(root, …)`,
//! `config.watch.globs(root)` and `config.runner.process_env(root)` read as they
//! did when the types lived here (bring the trait into scope).

pub use testdeck_model::config::*;

use crate::problem::Problem;
use std::path::Path;

/// `Config::load`: `testdeck.toml` read through the bounded reader.
pub trait ConfigLoad {
    /// Read `testdeck.toml` when present; a broken file is a located problem and
    /// the defaults are used.
    fn load(root: &Path, problems: &mut Vec<Problem>) -> Config;
}

impl ConfigLoad for Config {
    fn load(root: &Path, problems: &mut Vec<Problem>) -> Config {
        let path = root.join("testdeck.toml");
        match super::read::read(&path, Some(root), super::read::Kind::Config) {
            Ok(b) => Config::parse_bytes(b, problems),
            Err(e) if e.is_missing() => Config::default(),
            Err(e) => {
                problems.push(e.problem("testdeck.toml", "config"));
                Config::default()
            }
        }
    }
}

/// `Watch::globs`: the globs in force for the workspace at a root.
pub trait WatchGlobs {
    /// The globs in force for the workspace at `root` (the default source
    /// folders that exist there when `[watch] paths` is not set).
    fn globs(&self, root: &Path) -> Vec<String>;
}

impl WatchGlobs for Watch {
    fn globs(&self, root: &Path) -> Vec<String> {
        self.globs_where(|d| root.join(d).is_dir())
    }
}

/// `Runner::process_env`: the runner's environment with its `env-files` read.
pub trait RunnerEnv {
    /// What the runner's process is given ([`Runner::process_env_with`]), each
    /// of `env-files` read through the bounded reader (one that cannot be read
    /// gives nothing).
    fn process_env(&self, root: &Path) -> Vec<(String, String)>;
}

impl RunnerEnv for Runner {
    fn process_env(&self, root: &Path) -> Vec<(String, String)> {
        self.process_env_with(|f| {
            super::read::read(&root.join(f), Some(root), super::read::Kind::Config)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_env_is_read_and_named() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(
            dir.path().join("testdeck.toml"),
            "[runner]\nenv = { TZ = \"America/New_York\" }\nenv-files = [\".env\", \"gone.env\"]\n",
        )
        .expect("write");
        std::fs::write(dir.path().join(".env"), "A=1\n").expect("write");
        let mut problems = Vec::new();
        let c = Config::load(dir.path(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(c.runner.env["TZ"], "America/New_York");
        let env = c.runner.process_env(dir.path());
        assert!(env.contains(&("A".into(), "1".into())));
        assert!(env.contains(&("TESTDECK_RUNNER_ENV".into(), "A,TZ".into())));
        // a value that is not a string is a located problem
        std::fs::write(
            dir.path().join("testdeck.toml"),
            "[runner]\nenv = { TZ = 5 }\n",
        )
        .expect("write");
        let c = Config::load(dir.path(), &mut problems);
        assert!(c.runner.env.is_empty());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, Some(2), "{problems:?}");
        // no file: the defaults, and no problem
        std::fs::remove_file(dir.path().join("testdeck.toml")).expect("rm");
        let c = Config::load(dir.path(), &mut problems);
        assert_eq!(c.runner.command, DEFAULT_RUNNER);
        assert_eq!(problems.len(), 1, "{problems:?}");
    }

    #[test]
    fn the_default_globs_are_the_source_folders_there() {
        let d = tempfile::tempdir().expect("dir");
        std::fs::create_dir(d.path().join("src")).expect("mkdir");
        std::fs::create_dir(d.path().join("app")).expect("mkdir");
        assert_eq!(Watch::default().globs(d.path()), ["src/**", "app/**"]);
        let set = Watch {
            paths: Some(vec!["fixtures/**".into()]),
        };
        assert_eq!(set.globs(d.path()), ["fixtures/**"]);
    }
}
