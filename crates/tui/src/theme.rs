//! Themes: a palette and named UI styles in TOML (`themes/*.toml`, embedded), user
//! overrides field by field, and `NO_COLOR`.

use super::keymap::{ConfigError, toml_error};
use ratatui::style::{Color, Modifier, Style};
use std::collections::BTreeMap;
use std::str::FromStr;

/// The embedded themes: (name, TOML).
pub(crate) const BUILTIN: [(&str, &str); 3] = [
    ("dark", include_str!("../../../themes/dark.toml")),
    ("light", include_str!("../../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../../themes/high-contrast.toml"),
    ),
];

/// Every style a view asks for; each theme file defines them all.
pub(crate) const UI_KEYS: [&str; 33] = [
    "text",
    "muted",
    "accent",
    "border",
    "border_focus",
    "title",
    "selection",
    "marked",
    "match",
    "passed",
    "failed",
    "running",
    "skipped",
    "info",
    "warning",
    "badge",
    "badge_live",
    "badge_temp",
    "folder",
    "tab",
    "tab_active",
    "status_bar",
    "status_key",
    "banner",
    "risk_readonly",
    "risk_mutating",
    "risk_destructive",
    "prompt",
    "input",
    "artifact_ref",
    "diff_expected",
    "diff_received",
    "source_mark",
];

/// A resolved theme: one style per UI key.
#[derive(Debug, Clone, Default)]
pub struct Theme {
    pub name: String,
    styles: BTreeMap<String, Style>,
    pub no_color: bool,
    /// The terminal colours the theme is made for (`palette.background` and
    /// `palette.foreground`): what a cell without its own colour shows, so
    /// contrast can be measured (black and white when the file does not say).
    pub(crate) background: Color,
    pub(crate) foreground: Color,
}

/// The entries of the optional table `[name]`, each parsed by `parse(key, value)`
/// (none when the file has no such table; the first bad entry is the error).
fn section<T>(
    table: &toml::Table,
    name: &str,
    parse: impl Fn(&str, &toml::Value) -> Result<T, String>,
) -> Result<BTreeMap<String, T>, String> {
    let Some(t) = table.get(name) else {
        return Ok(BTreeMap::new());
    };
    let t = t
        .as_table()
        .ok_or_else(|| format!("[{name}] must be a table"))?;
    t.iter()
        .map(|(k, v)| Ok((k.clone(), parse(k, v)?)))
        .collect()
}

impl Theme {
    /// The style of `key` (the default style for an unknown key).
    pub fn get(&self, key: &str) -> Style {
        self.styles.get(key).copied().unwrap_or_default()
    }

    /// Build from a TOML table with `[palette]` and `[ui]`.
    pub fn from_table(name: &str, table: &toml::Table, no_color: bool) -> Result<Theme, String> {
        let palette = section(table, "palette", |k, v| {
            let s = v
                .as_str()
                .ok_or_else(|| format!("palette.{k} must be a colour string"))?;
            Color::from_str(s).map_err(|_| format!("palette.{k}: bad colour {s:?}"))
        })?;
        let styles = section(table, "ui", |k, v| {
            let st = v
                .as_table()
                .ok_or_else(|| format!("ui.{k} must be a table like {{ fg = \"red\" }}"))?;
            style_of(k, st, &palette, no_color)
        })?;
        for k in table.keys() {
            if k != "palette" && k != "ui" {
                return Err(format!("unknown section [{k}]"));
            }
        }
        Ok(Theme {
            name: name.to_owned(),
            styles,
            no_color,
            background: palette.get("background").copied().unwrap_or(Color::Black),
            foreground: palette.get("foreground").copied().unwrap_or(Color::White),
        })
    }

    /// The background as RGB (what a screenshot's transparency is drawn over; black for
    /// the terminal's own default).
    pub fn background_rgb(&self) -> [u8; 3] {
        rgb(self.background).map_or([0, 0, 0], |(r, g, b)| [r, g, b])
    }

    /// The embedded theme `name`.
    pub fn builtin(name: &str, no_color: bool) -> Option<Theme> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        let table: toml::Table = toml::from_str(text).ok()?;
        Theme::from_table(name, &table, no_color).ok()
    }

    /// The UI keys this theme lacks.
    pub fn missing(&self) -> Vec<&'static str> {
        UI_KEYS
            .iter()
            .copied()
            .filter(|k| !self.styles.contains_key(*k))
            .collect()
    }
}

/// The sRGB value of a colour: true colours as they are, the 16 named colours and
/// the rest of the 256-colour palette as xterm draws them by default
/// ([`testdeck_core::sanitize::xterm_rgb`]; `None`: the terminal's own default, `Reset`).
pub fn rgb(c: Color) -> Option<(u8, u8, u8)> {
    let i = match c {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some((r, g, b)),
        Color::Indexed(i) => i,
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
    };
    Some(testdeck_core::sanitize::xterm_rgb(i))
}

/// The WCAG 2 relative luminance of an sRGB colour.
fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let lin = |v: u8| {
        let c = f64::from(v) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// The WCAG 2 contrast ratio of two colours (1 to 21).
pub fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

impl Theme {
    /// The colours a cell of style `s` is seen in (text, background) on this
    /// theme's terminal: defaults filled in, `reversed` applied.
    pub fn seen(&self, s: Style) -> ((u8, u8, u8), (u8, u8, u8)) {
        let or = |c: Option<Color>, d: Color| {
            c.and_then(rgb)
                .or_else(|| rgb(d))
                .unwrap_or((128, 128, 128))
        };
        let fg = or(s.fg, self.foreground);
        let bg = or(s.bg, self.background);
        let reversed = s.add_modifier.contains(Modifier::REVERSED)
            && !s.sub_modifier.contains(Modifier::REVERSED);
        if reversed { (bg, fg) } else { (fg, bg) }
    }
}

fn color(name: &str, v: &toml::Value, palette: &BTreeMap<String, Color>) -> Result<Color, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("{name} must be a colour string"))?;
    palette.get(s).copied().map_or_else(
        || Color::from_str(s).map_err(|_| format!("{name}: unknown colour {s:?}")),
        Ok,
    )
}

fn style_of(
    key: &str,
    t: &toml::Table,
    palette: &BTreeMap<String, Color>,
    no_color: bool,
) -> Result<Style, String> {
    let mut s = Style::default();
    for (field, v) in t {
        let flag = |m: Modifier, s: Style| -> Result<Style, String> {
            match v.as_bool() {
                Some(true) => Ok(s.add_modifier(m)),
                Some(false) => Ok(s),
                None => Err(format!("ui.{key}.{field} must be true or false")),
            }
        };
        s = match field.as_str() {
            "fg" => {
                let c = color(&format!("ui.{key}.fg"), v, palette)?;
                if no_color { s } else { s.fg(c) }
            }
            "bg" => {
                let c = color(&format!("ui.{key}.bg"), v, palette)?;
                // without colour a background still has to stand out
                if no_color {
                    s.add_modifier(Modifier::REVERSED)
                } else {
                    s.bg(c)
                }
            }
            "bold" => flag(Modifier::BOLD, s)?,
            "italic" => flag(Modifier::ITALIC, s)?,
            "underline" => flag(Modifier::UNDERLINED, s)?,
            "reversed" => flag(Modifier::REVERSED, s)?,
            "dim" => flag(Modifier::DIM, s)?,
            other => return Err(format!("ui.{key}: unknown field {other:?}")),
        };
    }
    Ok(s)
}

/// Lay `over` onto `base`: tables merge key by key, anything else replaces.
pub fn merge_tables(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_tables(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Load a theme: the embedded `name` (or `NAME.toml` in the user folder), then the
/// user's `theme.toml` over it field by field. A broken user file is returned as an
/// error beside the theme built without it.
pub fn load(
    name: Option<&str>,
    user_dir: Option<&std::path::Path>,
    no_color: bool,
) -> (Theme, Vec<ConfigError>) {
    let mut errors = Vec::new();
    let wanted = name.unwrap_or("dark");
    let base_text = BUILTIN
        .iter()
        .find(|(n, _)| *n == wanted)
        .map(|(_, t)| (*t).to_owned());
    let mut table: toml::Table = toml::from_str(BUILTIN[0].1).unwrap_or_default();
    let read_user = |file: &str, table: &mut toml::Table, errors: &mut Vec<ConfigError>| {
        let Some(dir) = user_dir else { return false };
        let path = dir.join(file);
        // the person's own folder; still never a FIFO, a device or a giant
        let Ok(Ok(text)) = testdeck_core::workspace::read::read(
            &path,
            None,
            testdeck_core::workspace::read::Kind::UserConfig,
        )
        .map(String::from_utf8) else {
            return false;
        };
        match toml::from_str::<toml::Table>(&text) {
            Ok(t) => {
                let mut trial = table.clone();
                merge_tables(&mut trial, t);
                match Theme::from_table(wanted, &trial, no_color) {
                    Ok(_) => *table = trial,
                    Err(m) => errors.push(ConfigError {
                        file: file.to_owned(),
                        line: 1,
                        column: 1,
                        message: m,
                    }),
                }
            }
            Err(e) => errors.push(toml_error(file, &text, &e)),
        }
        true
    };
    match base_text {
        Some(t) => {
            if let Ok(t) = toml::from_str::<toml::Table>(&t) {
                table = t;
            }
        }
        None => {
            if !read_user(&format!("{wanted}.toml"), &mut table, &mut errors) {
                errors.push(ConfigError {
                    file: format!("{wanted}.toml"),
                    line: 1,
                    column: 1,
                    message: format!(
                        "no theme named {wanted:?} (built in: dark, light, high-contrast)"
                    ),
                });
            }
        }
    }
    read_user("theme.toml", &mut table, &mut errors);
    let theme = Theme::from_table(wanted, &table, no_color)
        .or_else(|_| Theme::builtin("dark", no_color).ok_or(()))
        .unwrap_or_default();
    (theme, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contrast_follows_wcag() {
        let ratio = contrast((0, 0, 0), (255, 255, 255));
        assert!((ratio - 21.0).abs() < 1e-9, "{ratio}");
        assert!((contrast((9, 9, 9), (9, 9, 9)) - 1.0).abs() < 1e-9);
        // #767676 on white is the classic just-passing grey (4.54:1)
        let grey = contrast((0x76, 0x76, 0x76), (255, 255, 255));
        assert!((4.5..4.6).contains(&grey), "{grey}");
        assert_eq!(rgb(Color::Indexed(196)), Some((255, 0, 0)));
        assert_eq!(rgb(Color::Indexed(9)), rgb(Color::LightRed));
        let t = Theme::builtin("dark", false).expect("dark");
        let sel = Style::default().add_modifier(Modifier::REVERSED);
        let (fg, bg) = t.seen(sel.fg(Color::White));
        assert_eq!((fg, bg), (rgb(t.background).expect("bg"), (255, 255, 255)));
    }

    #[test]
    fn builtins_define_every_key() {
        for (name, _) in BUILTIN {
            let t = Theme::builtin(name, false).expect(name);
            assert!(t.missing().is_empty(), "{name} lacks {:?}", t.missing());
        }
    }

    #[test]
    fn user_overrides_field_by_field_and_no_color() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(
            dir.path().join("theme.toml"),
            "[ui]\npassed = { fg = \"#010203\" }\n",
        )
        .expect("w");
        let (t, errs) = load(Some("dark"), Some(dir.path()), false);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(t.get("passed").fg, Some(Color::Rgb(1, 2, 3)));
        assert!(t.get("failed").fg.is_some());
        let (nc, _) = load(Some("dark"), Some(dir.path()), true);
        assert_eq!(nc.get("passed").fg, None);
        assert!(
            nc.get("selection")
                .add_modifier
                .contains(Modifier::REVERSED)
        );
    }

    #[test]
    fn broken_user_file_is_located_and_ignored() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("theme.toml"), "[ui]\n\npassed = { fg = \n").expect("w");
        let (t, errs) = load(None, Some(dir.path()), false);
        assert_eq!(errs.len(), 1);
        assert_eq!((errs[0].file.as_str(), errs[0].line), ("theme.toml", 3));
        assert!(t.missing().is_empty());
        std::fs::write(
            dir.path().join("theme.toml"),
            "[ui]\npassed = { fg = \"nocolour\" }\n",
        )
        .expect("w");
        let (t, errs) = load(None, Some(dir.path()), false);
        assert!(errs[0].message.contains("nocolour"));
        assert!(t.get("passed").fg.is_some());
    }
}
