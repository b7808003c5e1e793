//! Whether the runner of seed 000 §4 is there: its program on `PATH` (or at its
//! path) and the script it is given. What `run`, the cockpit and `validate` say
//! when it is not, with the way to get one (`testdeck init`).

use super::config::DEFAULT_RUNNER;
use crate::problem::Problem;
use std::path::Path;

/// The rule of a missing runner.
pub const RULE: &str = "runner-missing";

/// Where the runner command comes from: `testdeck.toml` when it sets one, else
/// the default runner.
pub fn origin(root: &Path, command: &[String]) -> &'static str {
    if command.iter().map(String::as_str).eq(DEFAULT_RUNNER) {
        "the default runner"
    } else if root.join("testdeck.toml").is_file() {
        "testdeck.toml"
    } else {
        "the runner command"
    }
}

/// What is missing of the runner `command` in the workspace at `root`, as one
/// sentence that says what testdeck expected and suggests `testdeck init`;
/// `None` when its program and its script are there.
pub fn missing(root: &Path, command: &[String]) -> Option<String> {
    let shown = command.join(" ");
    let from = origin(root, command);
    let Some(program) = command.first() else {
        return Some(format!(
            "runner missing: the command of {from} is empty; run `testdeck init` (testdeck expected seed 000's runner `node scripts/test-workflow.mjs`)"
        ));
    };
    if !program_found(root, program) {
        return Some(format!(
            "runner missing: `{program}` not found; run `testdeck init` (testdeck expected seed 000's runner `{shown}`, {from}, which runs the selected cases and writes their runs under tests/logs/)"
        ));
    }
    let script = command
        .iter()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .filter(|a| looks_like_script(a))?;
    if root.join(script).exists() {
        return None;
    }
    Some(format!(
        "runner missing: {script} not found; run `testdeck init` (testdeck expected seed 000's runner `{shown}`, {from}, which runs the selected cases and writes their runs under tests/logs/)"
    ))
}

/// The `runner-missing` problem of a workspace with tests-tree cases whose
/// runner is not there, located at `testdeck.toml` or "the default runner".
pub fn problem(root: &Path, command: &[String], has_cases: bool) -> Option<Problem> {
    if !has_cases {
        return None;
    }
    let message = missing(root, command)?;
    let file = match origin(root, command) {
        "the default runner" => "the default runner",
        _ => "testdeck.toml",
    };
    Some(Problem::error(file, RULE, message))
}

/// The hint added when the runner ran but wrote no run at all.
pub const NO_RUN_HINT: &str = "testdeck expected it to write tests/logs/<scope>/<caseId>/<runId>/ (seed 000 §5); `testdeck init` writes a runner that does";

fn looks_like_script(arg: &str) -> bool {
    const EXTS: [&str; 11] = [
        "js", "mjs", "cjs", "ts", "mts", "cts", "py", "sh", "rb", "pl", "bash",
    ];
    !arg.chars().any(char::is_whitespace)
        && Path::new(arg)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTS.contains(&e))
}

fn program_found(root: &Path, program: &str) -> bool {
    if program.contains('/') {
        return root.join(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_missing_script_or_program_is_named_with_init() {
        let dir = tempfile::tempdir().expect("dir");
        let m = missing(dir.path(), &argv(&DEFAULT_RUNNER)).expect("missing");
        assert!(m.contains("scripts/test-workflow.mjs not found"), "{m}");
        assert!(
            m.contains("the default runner") && m.contains("testdeck init"),
            "{m}"
        );
        let m = missing(dir.path(), &argv(&["no-such-program-xyz", "a.mjs"])).expect("missing");
        assert!(m.contains("`no-such-program-xyz` not found"), "{m}");
        std::fs::create_dir_all(dir.path().join("scripts")).expect("mkdir");
        std::fs::write(dir.path().join("scripts/test-workflow.mjs"), "").expect("write");
        assert_eq!(
            missing(dir.path(), &argv(&["sh", "scripts/test-workflow.mjs"])),
            None
        );
        // a shell line is not a script path
        assert_eq!(
            missing(dir.path(), &argv(&["sh", "-c", "node x/y.mjs"])),
            None
        );
        let p = problem(dir.path(), &argv(&["sh", "gone.sh"]), true).expect("problem");
        assert_eq!(p.rule, RULE);
        assert!(problem(dir.path(), &argv(&["sh", "gone.sh"]), false).is_none());
    }
}
