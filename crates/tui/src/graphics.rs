//! Terminal graphics for the full-screen screenshot (`i`) and a trace's frames: the protocol — kitty, sixel,
//! iTerm2, or the half blocks of `tui::image` — forced by `TESTDECK_IMAGES` or found by a
//! bounded query written after the first frame (half blocks until it is answered), and
//! the picture on screen encoded for it (by ratatui-image, from the bounded decode's copy).

use super::image::{Preview, Rgb};
use ratatui::layout::{Rect, Size};
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the startup query waits for the terminal's answers (every terminal answers
/// the device-attributes query at its end at once; one that does not keeps half blocks,
/// and the cockpit is drawn and takes keys meanwhile).
pub(crate) const QUERY_TIMEOUT: Duration = Duration::from_secs(1);
/// The variable that forces a protocol.
pub(crate) const ENV: &str = "TESTDECK_IMAGES";

/// A way to draw pictures in a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Halfblocks,
    Kitty,
    Sixel,
    Iterm2,
}

/// What `TESTDECK_IMAGES` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Choice {
    Auto,
    Forced(Kind),
}

/// `TESTDECK_IMAGES`: `auto` (or unset, or empty), `kitty`, `sixel`, `iterm2`, `halfblocks`.
pub(crate) fn choice(v: Option<&str>) -> Result<Choice, String> {
    Ok(match v.map(str::trim).unwrap_or_default() {
        "" | "auto" => Choice::Auto,
        "kitty" => Choice::Forced(Kind::Kitty),
        "sixel" => Choice::Forced(Kind::Sixel),
        "iterm2" => Choice::Forced(Kind::Iterm2),
        "halfblocks" => Choice::Forced(Kind::Halfblocks),
        other => {
            return Err(format!(
                "{ENV}={:?}: not one of auto, kitty, sixel, iterm2, halfblocks (half blocks used)",
                testdeck_core::sanitize::escape(other)
            ));
        }
    })
}

/// The queries written at startup: kitty graphics support, the cell size in pixels, and
/// the primary device attributes (the answer that ends the wait; `4` in it is sixel).
pub(crate) const QUERIES: &str = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\\x1b[16t\x1b[c";

/// What the terminal's answers to [`QUERIES`] (and its name in the environment) say: the
/// protocol, and the cell size in pixels when it told it.
pub(crate) fn from_answers(bytes: &[u8], iterm2_env: bool) -> (Kind, Option<(u16, u16)>) {
    let text = String::from_utf8_lossy(bytes);
    let kitty = text.contains("\x1b_Gi=31;OK");
    let da1 = text.find("\x1b[?").and_then(|i| {
        let rest = &text[i + 3..];
        let end = rest.find('c')?;
        Some(rest[..end].to_owned())
    });
    let sixel = da1.is_some_and(|p| p.split(';').any(|x| x == "4"));
    // `ESC [ 6 ; height ; width t`
    let cell = text.find("\x1b[6;").and_then(|i| {
        let rest = &text[i + 4..];
        let end = rest.find('t')?;
        let mut it = rest[..end].split(';').map(|n| n.parse::<u16>().ok());
        let (h, w) = (it.next()??, it.next()??);
        (w > 0 && h > 0).then_some((w, h))
    });
    // iTerm2 and WezTerm draw iTerm2 images best; their kitty support is partial
    let kind = if iterm2_env {
        Kind::Iterm2
    } else if kitty {
        Kind::Kitty
    } else if sixel {
        Kind::Sixel
    } else {
        Kind::Halfblocks
    };
    (kind, cell)
}

/// iTerm2 or WezTerm by their own variables (they answer no query for it).
pub(crate) fn iterm2_env(var: impl Fn(&str) -> Option<String>) -> bool {
    matches!(
        var("TERM_PROGRAM").as_deref(),
        Some("iTerm.app" | "WezTerm")
    ) || var("LC_TERMINAL").as_deref() == Some("iTerm2")
}

/// The wait for the answers: [`QUERY_TIMEOUT`], or `TESTDECK_QUERY_TIMEOUT_MS` (a test
/// hook: a terminal that answers late, or never within the test).
pub(crate) fn query_timeout() -> Duration {
    std::env::var("TESTDECK_QUERY_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map_or(QUERY_TIMEOUT, Duration::from_millis)
}

/// Read the answers to [`QUERIES`] (written after the first frame) from stdin until the
/// device attributes come, the deadline passes or `stop` is set. crossterm's reader
/// does not have stdin yet: what the person types meanwhile is handed to `typed` as
/// keys (and an answer never is a key).
#[cfg(unix)]
pub(crate) fn read_answers(
    timeout: Duration,
    stop: &std::sync::atomic::AtomicBool,
    typed: &dyn Fn(Vec<crossterm::event::Event>),
) -> Vec<u8> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::sync::atomic::Ordering;
    let stdin = std::io::stdin();
    let deadline = Instant::now() + timeout;
    let mut got = Vec::new();
    let mut unfinished = Vec::new();
    let mut buf = [0u8; 1024];
    while !da1_answered(&got) && !stop.load(Ordering::Relaxed) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || got.len() > 64 * 1024 {
            break;
        }
        // in slices, to see `stop` (an editor about to take the terminal)
        let left = left.min(Duration::from_millis(50));
        let ts = Timespec {
            tv_sec: left.as_secs() as _,
            tv_nsec: left.subsec_nanos().into(),
        };
        let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
        match poll(&mut fds, Some(&ts)) {
            // the slice over: a lone ESC left is the Esc key
            Ok(0) => {
                if super::term_answers::Split::lone_esc(&unfinished) {
                    typed(super::term_answers::keys(&unfinished));
                    unfinished.clear();
                }
            }
            // a signal: look at `stop` and the deadline again
            Err(rustix::io::Errno::INTR) => {}
            Ok(_) => match rustix::io::read(&stdin, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    unfinished.extend_from_slice(&buf[..n]);
                    let s = super::term_answers::split(&unfinished);
                    got.extend_from_slice(&s.answers);
                    let keys = super::term_answers::keys(&s.typed);
                    if !keys.is_empty() {
                        typed(keys);
                    }
                    unfinished = s.unfinished;
                }
            },
            Err(_) => break,
        }
    }
    if super::term_answers::Split::lone_esc(&unfinished) {
        typed(super::term_answers::keys(&unfinished));
    }
    got
}

#[cfg(not(unix))]
pub(crate) fn read_answers(
    _: Duration,
    _: &std::sync::atomic::AtomicBool,
    _: &dyn Fn(Vec<crossterm::event::Event>),
) -> Vec<u8> {
    Vec::new()
}

/// The device-attributes answer `ESC [ ? … c` has come.
fn da1_answered(b: &[u8]) -> bool {
    let t = String::from_utf8_lossy(b);
    t.find("\x1b[?").is_some_and(|i| {
        t[i + 3..].find('c').is_some_and(|e| {
            t[i + 3..i + 3 + e]
                .bytes()
                .all(|c| c.is_ascii_digit() || c == b';')
        })
    })
}

/// How the graphics of this terminal are decided.
pub(crate) enum Start {
    /// Known now: forced by `TESTDECK_IMAGES`, or half blocks (stdin no terminal, `TERM=dumb`).
    Known(Graphics),
    /// Asked: the cockpit draws half blocks until [`read_answers`] says more
    /// ([`answered`]); the first frame does not wait for them.
    Ask,
}

/// The graphics of this terminal as far as they are known before the first frame:
/// `TESTDECK_IMAGES`, else (stdin a terminal) a query to write after it. The error is
/// a notice (an unknown value).
pub(crate) fn start() -> (Start, Option<String>) {
    use std::io::IsTerminal as _;
    let var = |n: &str| std::env::var(n).ok();
    match choice(var(ENV).as_deref()) {
        Err(e) => (Start::Known(Graphics::default()), Some(e)),
        Ok(Choice::Forced(k)) => (Start::Known(Graphics::new(k, window_cell())), None),
        Ok(Choice::Auto) if !std::io::stdin().is_terminal() => {
            (Start::Known(Graphics::default()), None)
        }
        Ok(Choice::Auto) if var("TERM").as_deref() == Some("dumb") => {
            (Start::Known(Graphics::default()), None)
        }
        Ok(Choice::Auto) => (Start::Ask, None),
    }
}

/// The graphics the answers to [`QUERIES`] say (none: half blocks).
pub(crate) fn answered(answers: &[u8]) -> Graphics {
    let (k, told) = from_answers(answers, iterm2_env(|n| std::env::var(n).ok()));
    Graphics::new(k, window_cell().or(told))
}

/// Kitty, said by an answer that came after the wait (read by crossterm's reader).
pub(crate) fn answered_late_kitty() -> Graphics {
    Graphics::new(Kind::Kitty, window_cell())
}

/// The cell size in pixels the kernel knows for the terminal (often 0 = unknown).
fn window_cell() -> Option<(u16, u16)> {
    let w = crossterm::terminal::window_size().ok()?;
    (w.width > 0 && w.height > 0 && w.columns > 0 && w.rows > 0)
        .then(|| (w.width / w.columns, w.height / w.rows))
        .filter(|(x, y)| *x > 0 && *y > 0)
}

/// A picture on screen, encoded for one area.
struct Shown {
    file: PathBuf,
    area: Rect,
    protocol: Result<Protocol, String>,
}

/// A picture on screen: its key (its file), its decoded copy and the area it fills.
pub type Picture = (PathBuf, std::sync::Arc<Preview>, Rect);

/// The terminal's protocol and the pictures encoded for it.
#[derive(Default)]
pub struct Graphics {
    /// `None`: half blocks.
    picker: Option<Picker>,
    shown: Vec<Shown>,
}

impl Graphics {
    /// `kind` with the cell size in pixels (`None`: a common 10×20 guess).
    pub fn new(kind: Kind, cell: Option<(u16, u16)>) -> Graphics {
        let protocol = match kind {
            Kind::Halfblocks => return Graphics::default(),
            Kind::Kitty => ProtocolType::Kitty,
            Kind::Sixel => ProtocolType::Sixel,
            Kind::Iterm2 => ProtocolType::Iterm2,
        };
        let (w, h) = cell.unwrap_or((10, 20));
        // the font size is ours (measured or guessed); the query-based constructor is
        // not used because its reader thread outlives its timeout
        #[allow(deprecated)]
        let mut picker = Picker::from_fontsize(ratatui_image::FontSize::new(w, h));
        picker.set_protocol_type(protocol);
        Graphics {
            picker: Some(picker),
            shown: Vec::new(),
        }
    }

    pub fn kind(&self) -> Kind {
        match self.picker.as_ref().map(Picker::protocol_type) {
            None | Some(ProtocolType::Halfblocks) => Kind::Halfblocks,
            Some(ProtocolType::Kitty) => Kind::Kitty,
            Some(ProtocolType::Sixel) => Kind::Sixel,
            Some(ProtocolType::Iterm2) => Kind::Iterm2,
        }
    }

    /// Keep the encoded pictures in step with what is on screen: `want` is each
    /// picture's key (its file), its decoded copy and the area it fills; none when
    /// no picture is shown. A picture already encoded for its area is kept.
    pub fn sync(&mut self, want: &[(&Path, &Rgb, Rect)]) {
        let Some(picker) = &self.picker else {
            return;
        };
        let mut kept: Vec<Shown> = Vec::with_capacity(want.len());
        for (file, rgb, area) in want {
            if let Some(i) = self
                .shown
                .iter()
                .position(|s| s.file == *file && s.area == *area)
            {
                kept.push(self.shown.swap_remove(i));
                continue;
            }
            let protocol = to_image(rgb)
                .ok_or_else(|| "the decoded copy has no pixels".to_owned())
                .and_then(|img| {
                    picker
                        .new_protocol(
                            img,
                            Size::new(area.width, area.height),
                            ratatui_image::Resize::Scale(None),
                        )
                        .map_err(|e| e.to_string())
                });
            kept.push(Shown {
                file: file.to_path_buf(),
                area: *area,
                protocol,
            });
        }
        self.shown = kept;
    }

    /// Keep the encoded pictures in step with `shown`, the pictures on screen
    /// (none when no screen shows one): [`Graphics::sync`].
    pub fn show(&mut self, shown: &[Picture]) {
        let want: Vec<_> = shown
            .iter()
            .map(|(file, p, area)| (file.as_path(), &p.image, *area))
            .collect();
        self.sync(&want);
    }

    /// The picture encoded for `file` in `area`, when the terminal takes a protocol.
    pub(crate) fn protocol(&self, file: &Path, area: Rect) -> Option<&Protocol> {
        self.shown
            .iter()
            .find(|s| s.file == file && s.area == area)
            .and_then(|s| s.protocol.as_ref().ok())
    }

    /// A protocol picture is on screen (closing it needs a whole redraw: its pixels are
    /// not cells the next frame's diff knows).
    pub(crate) fn on_screen(&self) -> bool {
        self.shown.iter().any(|s| s.protocol.is_ok())
    }
}

fn to_image(rgb: &Rgb) -> Option<image::DynamicImage> {
    let flat: Vec<u8> = rgb.px.iter().flatten().copied().collect();
    image::RgbImage::from_raw(rgb.width, rgb.height, flat).map(image::DynamicImage::ImageRgb8)
}

/// The area the full-screen preview's picture fills on a `w`×`h` terminal: inside the
/// frame, under the caption row (as `view::artifacts::screen` draws it).
pub(crate) fn screen_body(w: u16, h: u16) -> Rect {
    Rect::new(1, 2, w.saturating_sub(2), h.saturating_sub(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_forces_a_protocol_or_says_what_it_takes() {
        assert_eq!(choice(None), Ok(Choice::Auto));
        assert_eq!(choice(Some("")), Ok(Choice::Auto));
        assert_eq!(choice(Some("kitty")), Ok(Choice::Forced(Kind::Kitty)));
        assert_eq!(choice(Some("iterm2")), Ok(Choice::Forced(Kind::Iterm2)));
        assert_eq!(
            choice(Some("halfblocks")),
            Ok(Choice::Forced(Kind::Halfblocks))
        );
        assert!(
            choice(Some("png"))
                .expect_err("unknown")
                .contains("auto, kitty")
        );
    }

    #[test]
    fn the_answers_name_the_protocol_and_the_cell_size() {
        // kitty: its graphics answer, then DA1
        let kitty = b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;9t\x1b[?62;22c";
        assert_eq!(from_answers(kitty, false), (Kind::Kitty, Some((9, 20))));
        assert!(da1_answered(kitty));
        // a sixel terminal (xterm -ti vt340, foot): 4 among the attributes
        assert_eq!(
            from_answers(b"\x1b[?63;1;2;4;6;9c", false),
            (Kind::Sixel, None)
        );
        // plain xterm: no graphics
        assert_eq!(from_answers(b"\x1b[?1;2c", false), (Kind::Halfblocks, None));
        assert_eq!(from_answers(b"", true), (Kind::Iterm2, None));
        assert!(!da1_answered(b"\x1b_Gi=31;OK\x1b\\"));
        assert!(iterm2_env(
            |n| (n == "TERM_PROGRAM").then(|| "iTerm.app".into())
        ));
        assert!(!iterm2_env(|_| None));
    }

    #[test]
    fn a_forced_protocol_encodes_the_picture_once_per_area() {
        let rgb = Rgb {
            width: 4,
            height: 2,
            px: vec![[255, 0, 0]; 8],
        };
        let mut g = Graphics::new(Kind::Iterm2, Some((8, 16)));
        assert_eq!(g.kind(), Kind::Iterm2);
        let area = Rect::new(1, 2, 20, 10);
        g.sync(&[(Path::new("a.png"), &rgb, area)]);
        assert!(g.on_screen());
        assert!(g.protocol(Path::new("a.png"), area).is_some());
        assert!(
            g.protocol(Path::new("a.png"), Rect::new(1, 2, 30, 10))
                .is_none()
        );
        g.sync(&[]);
        assert!(!g.on_screen());
        let mut h = Graphics::default();
        h.sync(&[(Path::new("a.png"), &rgb, area)]);
        assert_eq!(h.kind(), Kind::Halfblocks);
        assert!(!h.on_screen(), "half blocks are cells: nothing encoded");
    }
}
