//! Keymaps: key notation (`j`, `<C-d>`, `["g","g"]`), the embedded TOML defaults, user
//! overrides key by key, and resolving key presses (with multi-key sequences) to commands.

use super::action::Command;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

/// The embedded keymaps: (name, TOML).
pub(crate) const BUILTIN: [(&str, &str); 1] =
    [("default", include_str!("../../../keymaps/default.toml"))];

/// The modes a keymap binds, in the order help lists them.
pub(crate) const MODES: [&str; 9] = [
    "normal", "finder", "input", "overlay", "prompt", "judge", "preview", "trace", "insights",
];

/// One key: a code and its modifiers (SHIFT is folded into the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn from_event(e: &KeyEvent) -> Key {
        let mut mods =
            e.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match e.code {
            // an uppercase letter already says SHIFT; BackTab is Shift-Tab
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                if mods.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            c => c,
        };
        Key { code, mods }
    }

    /// Parse one key of the notation: `j`, `G`, `<C-d>`, `<A-x>`, `<Esc>`, `<Enter>`, `<Space>`.
    pub fn parse(s: &str) -> Result<Key, String> {
        let mut chars = s.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Ok(Key {
                code: KeyCode::Char(c),
                mods: KeyModifiers::NONE,
            });
        }
        let inner = s
            .strip_prefix('<')
            .and_then(|r| r.strip_suffix('>'))
            .ok_or_else(|| format!("bad key {s:?}: a single character or <Name>"))?;
        let mut mods = KeyModifiers::NONE;
        let mut rest = inner;
        loop {
            let b = rest.as_bytes();
            if b.len() > 2 && b[1] == b'-' {
                match b[0] {
                    b'C' | b'c' => mods |= KeyModifiers::CONTROL,
                    b'A' | b'a' | b'M' | b'm' => mods |= KeyModifiers::ALT,
                    b'S' | b's' => mods |= KeyModifiers::SHIFT,
                    _ => break,
                }
                rest = &rest[2..];
            } else {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "esc" => KeyCode::Esc,
            "enter" | "cr" | "return" => KeyCode::Enter,
            "tab" if mods.contains(KeyModifiers::SHIFT) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "space" => KeyCode::Char(' '),
            "backspace" | "bs" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "lt" => KeyCode::Char('<'),
            "gt" => KeyCode::Char('>'),
            f if f.len() >= 2 && f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
                KeyCode::F(f[1..].parse().unwrap_or(1))
            }
            _ => {
                let mut cs = rest.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => {
                        // fold exactly as `from_event` does, or the binding could
                        // never match a key press: with CONTROL the letter is
                        // lowercase and SHIFT is dropped (`<C-S-t>` is `<C-t>`)
                        if mods.contains(KeyModifiers::CONTROL) {
                            mods.remove(KeyModifiers::SHIFT);
                            KeyCode::Char(c.to_ascii_lowercase())
                        } else if mods.contains(KeyModifiers::SHIFT) {
                            mods.remove(KeyModifiers::SHIFT);
                            KeyCode::Char(c.to_ascii_uppercase())
                        } else {
                            KeyCode::Char(c)
                        }
                    }
                    _ => return Err(format!("unknown key name {s:?}")),
                }
            }
        };
        // a character or BackTab never carries SHIFT (`from_event` drops it),
        // named ones (`<S-lt>`, `<S-Space>`, `<S-BackTab>`) included
        if matches!(code, KeyCode::Char(_) | KeyCode::BackTab) {
            mods.remove(KeyModifiers::SHIFT);
        }
        Ok(Key { code, mods })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.code {
            KeyCode::Char(' ') => "Space".to_owned(),
            KeyCode::Char(c) if self.mods.is_empty() => return write!(f, "{c}"),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Backspace => "BS".into(),
            KeyCode::Delete => "Del".into(),
            KeyCode::Up => "Up".into(),
            KeyCode::Down => "Down".into(),
            KeyCode::Left => "Left".into(),
            KeyCode::Right => "Right".into(),
            KeyCode::PageUp => "PageUp".into(),
            KeyCode::PageDown => "PageDown".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        let mut p = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            p.push_str("C-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            p.push_str("A-");
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            p.push_str("S-");
        }
        write!(f, "<{p}{name}>")
    }
}

/// One binding of a mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub on: Vec<Key>,
    pub run: Command,
    pub(crate) desc: String,
}

impl Binding {
    /// The key sequence as notation (`g g`, `<C-d>`).
    pub fn keys(&self) -> String {
        notation(&self.on)
    }
}

/// Keys in the keymap's notation, a space between them (`g g`, `<C-d>`).
fn notation(keys: &[Key]) -> String {
    keys.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OnSpec {
    One(String),
    Seq(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BindingSpec {
    on: OnSpec,
    run: String,
    #[serde(default)]
    desc: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeSpec {
    #[serde(default)]
    keymap: Vec<BindingSpec>,
}

/// A loaded keymap: the bindings of each mode.
#[derive(Debug, Clone, Default)]
pub struct Keymap {
    pub modes: BTreeMap<String, Vec<Binding>>,
}

/// A keymap file that could not be used, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    pub line: u32,
    pub(crate) column: u32,
    pub(crate) message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// A TOML error located in `text`.
pub(crate) fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ConfigError {
    let (line, column) = e.span().map_or((1, 1), |s| {
        testdeck_core::workspace::config::line_col(text, s.start)
    });
    ConfigError {
        file: file.to_owned(),
        line,
        column,
        message: e.message().to_owned(),
    }
}

impl Keymap {
    /// Parse a keymap file. Every binding must name a known command and key.
    pub fn parse(file: &str, text: &str) -> Result<Keymap, ConfigError> {
        let spec: BTreeMap<String, ModeSpec> =
            toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
        let mut modes = BTreeMap::new();
        for (mode, m) in spec {
            if !MODES.contains(&mode.as_str()) {
                return Err(locate(
                    file,
                    text,
                    &format!("[{mode}]"),
                    format!("unknown mode {mode:?}"),
                ));
            }
            let mut out = Vec::new();
            for b in m.keymap {
                let keys = match &b.on {
                    OnSpec::One(s) => vec![s.clone()],
                    OnSpec::Seq(v) => v.clone(),
                };
                let on = keys
                    .iter()
                    .map(|k| Key::parse(k))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| {
                        locate(file, text, &keys.first().cloned().unwrap_or_default(), e)
                    })?;
                if on.is_empty() {
                    return Err(locate(
                        file,
                        text,
                        &b.run,
                        "a binding needs at least one key".into(),
                    ));
                }
                let run = Command::from_name(&b.run).ok_or_else(|| {
                    locate(file, text, &b.run, format!("unknown command {:?}", b.run))
                })?;
                out.push(Binding {
                    on,
                    run,
                    desc: b.desc,
                });
            }
            modes.insert(mode, out);
        }
        Ok(Keymap { modes })
    }

    /// The embedded keymap `name`.
    pub fn builtin(name: &str) -> Option<Keymap> {
        BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(n, t)| Keymap::parse(&format!("keymaps/{n}.toml"), t).ok())
    }

    /// Lay `user` over `self` key by key: a binding of the same keys in the same mode
    /// replaces the default; `run = "noop"` unbinds it.
    pub fn merge(&mut self, user: Keymap) {
        for (mode, bindings) in user.modes {
            let list = self.modes.entry(mode).or_default();
            for b in bindings {
                list.retain(|x| x.on != b.on);
                if b.run != Command::Noop {
                    list.push(b);
                }
            }
        }
    }

    pub fn bindings(&self, mode: &str) -> &[Binding] {
        self.modes.get(mode).map_or(&[], Vec::as_slice)
    }

    /// The help's (mode, keys, desc) rows: bindings of one command with one desc
    /// share a row.
    pub fn help_rows(&self) -> Vec<(&'static str, String, String)> {
        let mut out: Vec<(&'static str, String, String)> = Vec::new();
        for mode in MODES {
            let mut seen: Vec<(Command, &str, usize)> = Vec::new();
            for b in self.bindings(mode) {
                if let Some((_, _, at)) = seen.iter().find(|(c, d, _)| *c == b.run && *d == b.desc)
                {
                    let row = &mut out[*at];
                    row.1.push_str(", ");
                    row.1.push_str(&b.keys());
                    continue;
                }
                seen.push((b.run, &b.desc, out.len()));
                let desc = if b.desc.is_empty() {
                    b.run.name().to_owned()
                } else {
                    b.desc.clone()
                };
                out.push((mode, b.keys(), desc));
            }
        }
        out
    }

    /// Pairs of bindings in one mode whose keys collide: the same sequence, or one a
    /// prefix of the other (the longer could never be reached).
    pub fn collisions(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for (mode, list) in &self.modes {
            for (i, a) in list.iter().enumerate() {
                for b in &list[i + 1..] {
                    let n = a.on.len().min(b.on.len());
                    if a.on[..n] == b.on[..n] {
                        out.push((mode.clone(), a.keys(), b.keys()));
                    }
                }
            }
        }
        out
    }

    /// The key-hint line's hints of `mode`: for each of `cmds` in that order (every
    /// command of the mode, in the keymap's order, when `cmds` is empty), its
    /// shortest key and the short form of its desc (`Filter timeline by type` →
    /// `filter timeline by type`, `Open: folder, run…` → `open`). A command with
    /// no key in the mode (unbound) is left out.
    pub fn hints(&self, mode: &str, cmds: &[Command]) -> Vec<(String, String)> {
        let list = self.bindings(mode);
        let mut order: Vec<Command> = cmds.to_vec();
        if order.is_empty() {
            for b in list {
                if !order.contains(&b.run) && b.run != Command::Noop {
                    order.push(b.run);
                }
            }
        }
        order
            .into_iter()
            .filter_map(|cmd| {
                let b = list
                    .iter()
                    .filter(|b| b.run == cmd)
                    .min_by_key(|b| b.keys().chars().count())?;
                let key = b.keys();
                // `<Space>` → `Space`: the brackets say nothing on a hint line
                let key = match key.strip_prefix('<').and_then(|k| k.strip_suffix('>')) {
                    Some(inner) if !inner.contains('>') => inner.to_owned(),
                    _ => key,
                };
                Some((key, short_desc(b)))
            })
            .collect()
    }

    /// What a box says of `cmd` in `mode`, in the key-hint line's words: every
    /// key bound to it (`Enter/y`), shortest last as the hint line shows it, and
    /// the hint's word (`go`). `None` when it is unbound there.
    pub fn choice(&self, mode: &str, cmd: Command) -> Option<(String, String)> {
        let (_, word) = self.hints(mode, &[cmd]).pop()?;
        let mut keys: Vec<String> = self
            .bindings(mode)
            .iter()
            .filter(|b| b.run == cmd)
            .map(|b| {
                let k = b.keys();
                match k.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
                    Some(inner) if !inner.contains('>') => inner.to_owned(),
                    _ => k,
                }
            })
            .collect();
        keys.dedup();
        Some((keys.join("/"), word))
    }

    /// The first key bound to `cmd` in `mode`, for hints.
    pub fn key_for(&self, mode: &str, cmd: Command) -> Option<String> {
        self.bindings(mode)
            .iter()
            .find(|b| b.run == cmd)
            .map(Binding::keys)
    }
}

/// The hint line's words for a binding, the shortest form: its desc up to its
/// first `:`, `(`, `,`, ` /` or ` —`, lower-cased at its start, or its command's
/// name (`failures_only` → `failures only`) when that is shorter.
fn short_desc(b: &Binding) -> String {
    let name = b.run.name().replace('_', " ");
    let desc = desc_head(b);
    if desc.is_empty() || name.chars().count() < desc.chars().count() {
        name
    } else {
        desc
    }
}

/// A binding's desc up to its first `:`, `(`, `,`, ` /` or ` —`, lower-cased at its start.
fn desc_head(b: &Binding) -> String {
    let end = [":", " (", ",", " /", " —", ";"]
        .iter()
        .filter_map(|m| b.desc.find(m))
        .min()
        .unwrap_or(b.desc.len());
    let short = b.desc[..end].trim();
    let mut chars = short.chars();
    chars.next().map_or_else(String::new, |c| {
        // `Esc`, `HOST`, `$EDITOR`: a word in capitals stays as written
        let second = chars.clone().next();
        if second.is_some_and(char::is_uppercase) {
            short.to_owned()
        } else {
            c.to_lowercase().chain(chars).collect()
        }
    })
}

fn locate(file: &str, text: &str, needle: &str, message: String) -> ConfigError {
    let (line, column) = text.find(needle).map_or((1, 1), |o| {
        testdeck_core::workspace::config::line_col(text, o)
    });
    ConfigError {
        file: file.to_owned(),
        line,
        column,
        message,
    }
}

/// What one key press resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    Cmd(Command),
    /// The start of a longer sequence: wait for the next key.
    Pending,
    /// No binding: the key is text input (or ignored).
    Unbound,
}

/// Resolves key presses of one mode, remembering a sequence in progress.
#[derive(Debug, Default)]
pub struct Resolver {
    pending: Vec<Key>,
    pending_mode: String,
}

impl Resolver {
    pub fn feed(&mut self, km: &Keymap, mode: &str, key: Key) -> Resolved {
        if self.pending_mode != mode {
            self.pending.clear();
            mode.clone_into(&mut self.pending_mode);
        }
        self.pending.push(key);
        let list = km.bindings(mode);
        let mut prefix = false;
        for b in list {
            if b.on == self.pending {
                self.pending.clear();
                return Resolved::Cmd(b.run);
            }
            if b.on.len() > self.pending.len() && b.on[..self.pending.len()] == self.pending[..] {
                prefix = true;
            }
        }
        if prefix {
            return Resolved::Pending;
        }
        let was_seq = self.pending.len() > 1;
        self.pending.clear();
        if was_seq {
            // a broken sequence: try the last key on its own
            return self.feed(km, mode, key);
        }
        Resolved::Unbound
    }

    /// The keys typed so far of an unfinished sequence (shown in the status bar).
    pub fn pending(&self) -> String {
        notation(&self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation() {
        assert_eq!(Key::parse("j").map(|k| k.code), Ok(KeyCode::Char('j')));
        let cd = Key::parse("<C-d>").expect("C-d");
        assert_eq!(
            (cd.code, cd.mods),
            (KeyCode::Char('d'), KeyModifiers::CONTROL)
        );
        assert_eq!(Key::parse("<Esc>").map(|k| k.code), Ok(KeyCode::Esc));
        assert_eq!(Key::parse("<S-Tab>").map(|k| k.code), Ok(KeyCode::BackTab));
        assert_eq!(
            Key::parse("<Space>").map(|k| k.code),
            Ok(KeyCode::Char(' '))
        );
        assert!(Key::parse("<Nope>").is_err());
        assert!(Key::parse("jj").is_err());
        assert_eq!(Key::parse("<C-d>").expect("k").to_string(), "<C-d>");
        // an event with SHIFT on an uppercase letter matches the plain notation
        let ev = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(Key::from_event(&ev), Key::parse("G").expect("G"));
    }

    #[test]
    fn sequences_and_overrides() {
        let mut km = Keymap::parse(
            "k.toml",
            r#"[normal]
keymap = [
  { on = ["g","g"], run = "go_top", desc = "Top" },
  { on = "G", run = "go_bottom", desc = "Bottom" },
  { on = "j", run = "move_down", desc = "Down" },
]"#,
        )
        .expect("parse");
        let mut r = Resolver::default();
        let g = Key::parse("g").expect("g");
        assert_eq!(r.feed(&km, "normal", g), Resolved::Pending);
        assert_eq!(r.feed(&km, "normal", g), Resolved::Cmd(Command::GoTop));
        assert_eq!(r.feed(&km, "normal", g), Resolved::Pending);
        let j = Key::parse("j").expect("j");
        assert_eq!(r.feed(&km, "normal", j), Resolved::Cmd(Command::MoveDown));
        let user = Keymap::parse(
            "u.toml",
            "[normal]\nkeymap = [{ on = \"j\", run = \"move_up\" }, { on = \"G\", run = \"noop\" }]",
        )
        .expect("user");
        km.merge(user);
        assert_eq!(r.feed(&km, "normal", j), Resolved::Cmd(Command::MoveUp));
        assert_eq!(
            r.feed(&km, "normal", Key::parse("G").expect("G")),
            Resolved::Unbound
        );
    }

    #[test]
    fn errors_are_located() {
        let e = Keymap::parse(
            "k.toml",
            "[normal]\nkeymap = [\n { on = \"j\", run = \"fly\" },\n]",
        )
        .expect_err("unknown command");
        assert_eq!((e.line, e.message.contains("fly")), (3, true));
        let e = Keymap::parse("k.toml", "[normal]\nkeymap = [ { on = \"j\" run } ]")
            .expect_err("syntax");
        assert_eq!(e.line, 2);
    }
}
