//! The person's own `$XDG_CONFIG_HOME/testdeck/config.toml` (fallback `~/.config/testdeck/`):
//! default theme and keymap, mouse capture, the time zone shown, and the `[open]` openers
//! (read where they run, [`crate::workspace::openers`]). Command-line flags win over it.
//!
//! A key it does not know or a value of the wrong type is one located message
//! (`config.toml:LINE:COL: …`) and the rest of the file still applies; only a
//! file that is not TOML at all is set aside whole.

use crate::clock::Zone;
use crate::workspace::config::line_col;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use toml::de::{DeTable, DeValue};

/// What the file sets; `None`: not set (the built-in default applies).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserConfig {
    /// The theme name (`theme = "..."`), as `--theme` gives it.
    pub theme: Option<String>,
    /// The keymap name (`keymap = "..."`), as `--keymap` gives it.
    pub keymap: Option<String>,
    /// Mouse capture in the cockpit (default on).
    pub mouse: Option<bool>,
    /// The time zone times are shown in (`time = "utc"` or `"local"`).
    pub time: Option<Zone>,
    /// The cockpit's key-hint line (`[ui] key_hints`, default on).
    pub key_hints: Option<bool>,
}

/// The keys of the file, for messages.
const KEYS: &str = "theme, keymap, mouse, time, [open], [ui]";
/// The keys of its `[ui]` table.
const UI_KEYS: &str = "key_hints";
/// The keys of its `[open]` table (the shape of `testdeck.toml`'s).
const OPEN_KEYS: [&str; 3] = ["trace", "html", "default"];

/// The folder of the person's files: `$XDG_CONFIG_HOME/testdeck`, else
/// `~/.config/testdeck`.
pub fn dir() -> Option<PathBuf> {
    crate::workspace::openers::UserDirs::from_env().config_dir
}

/// Read `dir/config.toml`: the settings and one message a problem (a missing
/// file is no problem).
pub fn load(dir: Option<&Path>) -> (UserConfig, Vec<String>) {
    let Some(path) = dir.map(|d| d.join("config.toml")) else {
        return (UserConfig::default(), Vec::new());
    };
    let shown = path.display().to_string();
    match crate::workspace::read::read(&path, None, crate::workspace::read::Kind::UserConfig) {
        Err(e) if e.is_missing() => (UserConfig::default(), Vec::new()),
        Err(e) => (UserConfig::default(), vec![format!("{shown}: {e}")]),
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => parse(&text, &shown),
            Err(_) => (
                UserConfig::default(),
                vec![format!("{shown}: not UTF-8 text")],
            ),
        },
    }
}

/// The settings of a config text named `file` in its messages.
pub fn parse(text: &str, file: &str) -> (UserConfig, Vec<String>) {
    let mut cfg = UserConfig::default();
    let mut msgs = Vec::new();
    // (offset, message): sorted by place at the end, whatever order the map keeps
    let at = |span: std::ops::Range<usize>, msg: String| {
        let (line, col) = line_col(text, span.start);
        (span.start, format!("{file}:{line}:{col}: {msg}"))
    };
    let table = match DeTable::parse(text) {
        Ok(t) => t,
        Err(e) => {
            let span = e.span().unwrap_or(0..0);
            msgs.push(at(
                span,
                format!("{} (the whole file is ignored)", e.message().trim_end()),
            ));
            return (cfg, msgs.into_iter().map(|(_, m)| m).collect());
        }
    };
    for (key, value) in table.get_ref() {
        let name: &str = key.get_ref();
        let v = value.get_ref();
        let wrong = |want: &str| {
            at(
                value.span(),
                format!("{name}: expected {want}, found {} (ignored)", v.type_str()),
            )
        };
        match name {
            "theme" | "keymap" => match v.as_str() {
                Some(s) if !s.trim().is_empty() => {
                    let slot = if name == "theme" {
                        &mut cfg.theme
                    } else {
                        &mut cfg.keymap
                    };
                    *slot = Some(s.to_owned());
                }
                _ => msgs.push(wrong("a name (a string)")),
            },
            "mouse" => match v.as_bool() {
                Some(b) => cfg.mouse = Some(b),
                None => msgs.push(wrong("true or false")),
            },
            "time" => match v.as_str().and_then(Zone::parse) {
                Some(z) => cfg.time = Some(z),
                None => msgs.push(wrong("\"local\" or \"utc\"")),
            },
            "open" => match v.as_table() {
                Some(open) => check_open(open, &at, &mut msgs),
                None => msgs.push(wrong("a table")),
            },
            "ui" => match v.as_table() {
                Some(ui) => {
                    for (key, value) in ui {
                        let name: &str = key.get_ref();
                        let v = value.get_ref();
                        match (name, v.as_bool()) {
                            ("key_hints", Some(b)) => cfg.key_hints = Some(b),
                            ("key_hints", None) => msgs.push(at(
                                value.span(),
                                format!(
                                    "ui.key_hints: expected true or false, found {} (ignored)",
                                    v.type_str()
                                ),
                            )),
                            _ => msgs.push(at(
                                key.span(),
                                format!("ui.{name}: unknown key (ignored; known: {UI_KEYS})"),
                            )),
                        }
                    }
                }
                None => msgs.push(wrong("a table")),
            },
            _ => msgs.push(at(
                key.span(),
                format!("unknown key {name:?} (ignored; known: {KEYS})"),
            )),
        }
    }
    msgs.sort_by_key(|(offset, _)| *offset);
    (cfg, msgs.into_iter().map(|(_, m)| m).collect())
}

/// `[open]`: each slot an argv (an array of strings); the openers read it where
/// they run, and skip a slot that is not one.
fn check_open(
    open: &DeTable<'_>,
    at: &impl Fn(std::ops::Range<usize>, String) -> (usize, String),
    msgs: &mut Vec<(usize, String)>,
) {
    for (key, value) in open {
        let name: &str = key.get_ref();
        if !OPEN_KEYS.contains(&name) {
            msgs.push(at(
                key.span(),
                format!(
                    "open.{name}: unknown opener (ignored; known: {})",
                    OPEN_KEYS.join(", ")
                ),
            ));
            continue;
        }
        let argv_ok = value
            .get_ref()
            .as_array()
            .is_some_and(|a| a.iter().all(|x| matches!(x.get_ref(), DeValue::String(_))));
        if !argv_ok {
            msgs.push(at(
                value.span(),
                format!(
                    "open.{name}: expected a command as an array of strings, found {} (the built-in opener is used)",
                    value.get_ref().type_str()
                ),
            ));
        }
    }
}

static CURRENT: OnceLock<UserConfig> = OnceLock::new();

/// Keep the config read at start for the rest of the process (once).
pub fn set_current(cfg: UserConfig) {
    let _ = CURRENT.set(cfg);
}

/// The config read at start (the defaults when none was).
pub fn current() -> UserConfig {
    CURRENT.get().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{UserConfig, parse};
    use crate::clock::Zone;

    #[test]
    fn every_key_is_read() {
        let (c, msgs) = parse(
            "theme = \"light\"\nkeymap = \"vim\"\nmouse = false\ntime = \"utc\"\n[open]\ntrace = [\"true\"]\nhtml = []\n[ui]\nkey_hints = false\n",
            "config.toml",
        );
        assert!(msgs.is_empty(), "{msgs:?}");
        assert_eq!(
            c,
            UserConfig {
                theme: Some("light".into()),
                keymap: Some("vim".into()),
                mouse: Some(false),
                time: Some(Zone::Utc),
                key_hints: Some(false),
            }
        );
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_located_and_the_rest_applies() {
        let text = "theme = \"light\"\ncolour = 1\nmouse = \"no\"\ntime = \"Mars\"\nkeymap = \"emacs\"\n[open]\ntrace = \"npx\"\nviewer = [\"x\"]\n";
        let (c, msgs) = parse(text, "config.toml");
        assert_eq!(c.theme.as_deref(), Some("light"));
        assert_eq!(c.keymap.as_deref(), Some("emacs"));
        assert_eq!((c.mouse, c.time), (None, None));
        let expected = [
            "config.toml:2:1: unknown key \"colour\"",
            "config.toml:3:9: mouse: expected true or false, found string",
            "config.toml:4:8: time: expected",
            "config.toml:7:9: open.trace: expected a command",
            "config.toml:8:1: open.viewer: unknown opener",
        ];
        assert_eq!(msgs.len(), expected.len(), "{msgs:#?}");
        for (msg, start) in msgs.iter().zip(expected) {
            assert!(msg.starts_with(start), "{msgs:?}");
        }
    }

    #[test]
    fn a_file_that_is_not_toml_is_one_located_message() {
        let (c, msgs) = parse("theme = \"light\"\nmouse = = true\n", "config.toml");
        assert_eq!(c, UserConfig::default());
        assert_eq!(msgs.len(), 1);
        assert!(msgs[0].starts_with("config.toml:2:"), "{msgs:?}");
        // arbitrary bytes never panic
        for text in [
            "[",
            "=",
            "\u{0}",
            "a.b.c = 1\n[a]\n",
            "[[open]]\n",
            "open = 3",
        ] {
            let _ = parse(text, "config.toml");
        }
    }
}
