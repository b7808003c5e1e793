//! Opening an artifact: the core decides which command opens it (`openers`); the
//! workspace's own opener is shown and trusted by the person before it first runs.

use super::super::action::Command;
use super::super::feature_work::{FeatureWork, OpenArtifact, Opening};
use super::pane::Ctx;
use super::{Effect, Overlay, Prompt, overlay};
use testdeck_core::sanitize::escape;

/// `o`: the selected artifact to its opener — which one, and the private
/// copy it is handed, are the runtime's job (`FeatureWork::Open`).
pub(super) fn open(cx: &mut Ctx) {
    use testdeck_core::workspace::openers::OpenerKind;
    let s = cx.shared;
    let (kind, shown, file, within) = match s.live.artifact_to_open(s.root) {
        Ok(a) => a,
        Err(why) => {
            cx.say(why);
            return;
        }
    };
    let job = OpenArtifact {
        // which command runs is the core's decision; the TUI only asks
        slot: OpenerKind::of(&kind, &shown),
        file,
        shown,
        within,
        places: s.opener_places.clone(),
    };
    cx.effect([Effect::Work(FeatureWork::Open(Box::new(job)))]);
}

/// What `o` on the artifact `job` led to: the opener started, the trust
/// question asked, or why nothing opens.
pub(super) fn opened(job: OpenArtifact, opening: Opening, cx: &mut Ctx) {
    match opening {
        Opening::Refused(why) => cx.say(why),
        Opening::Nothing => cx.say("no opener configured ([open] is empty)"),
        Opening::Run(argv) => {
            cx.say(format!("opening {}", escape(&job.shown)));
            cx.effect([Effect::Spawn(argv)]);
        }
        Opening::Ask { argv, file, target } => {
            cx.open(Overlay::Prompt(Prompt::TrustOpener(Box::new(
                overlay::TrustOpener {
                    slot: job.slot,
                    argv,
                    file,
                    target,
                    shown: job.shown,
                    scroll: 0,
                },
            ))));
        }
    }
}

/// A key on the trust question `t` (taken off the stack to answer it): Enter
/// trusts the workspace's opener (the runtime remembers it, `Effect::Trust`)
/// and opens the file; anything else opens nothing. A question too long for
/// the screen scrolls, and `y` is refused until its end (the whole command and
/// the question) has been on screen.
pub(super) fn trust_command(mut t: overlay::TrustOpener, c: Command, cx: &mut Ctx) {
    let size = cx.shared.size;
    let (rows, page) = (trust_rows(&t, size).len(), trust_page(size));
    let last = rows.saturating_sub(page);
    let step = match c {
        Command::MoveDown => Some(1),
        Command::MoveUp => Some(-1),
        Command::PageDown => Some(page.cast_signed()),
        Command::PageUp => Some(-page.cast_signed()),
        _ => None,
    };
    if let Some(step) = step {
        t.scroll = t.scroll.saturating_add_signed(step).min(last);
        cx.open(Overlay::Prompt(Prompt::TrustOpener(Box::new(t))));
        return;
    }
    if c == Command::Confirm && t.scroll < last {
        cx.say("the whole command first: ↓ scrolls to its end");
        cx.open(Overlay::Prompt(Prompt::TrustOpener(Box::new(t))));
        return;
    }
    if c != Command::Confirm {
        cx.effect([Effect::Discard(t.target.into())]);
        cx.say(format!(
            "not opened: the workspace's opener for {} is not trusted",
            escape(&t.shown)
        ));
        return;
    }
    cx.say(format!("opening {}…", escape(&t.shown)));
    let places = cx.shared.opener_places.clone();
    let mut argv = t.argv.clone();
    argv.push(t.target);
    cx.effect([
        Effect::Trust {
            places,
            slot: t.slot,
            argv: t.argv,
            shown: t.shown,
        },
        Effect::Spawn(argv),
    ]);
}

/// What the status line says once the trust of the opener of `shown` was
/// written (`Ok`) or could not be (the opener runs this once).
pub fn trusted(shown: &str, written: std::io::Result<()>) -> String {
    match written {
        Ok(()) => format!("opening {} (opener trusted)", escape(shown)),
        Err(e) => format!(
            "opening {} (trusted this once; not remembered: {})",
            escape(shown),
            escape(&e.to_string())
        ),
    }
}

/// The columns of a trust question's rows in a terminal of `size` (the prompt box,
/// 64 columns at most, less its borders).
fn trust_width(size: (u16, u16)) -> usize {
    usize::from(size.0.min(64).saturating_sub(2).max(1))
}

/// How many rows of the trust question the prompt box shows at once in a
/// terminal of `size`: its height less the borders, the `↓ more` line and the
/// y/N line.
pub fn trust_page(size: (u16, u16)) -> usize {
    usize::from(size.1.saturating_sub(4).max(1))
}

/// The trust question as rows that fit the prompt box of a terminal of `size`:
/// the file, the command with its arguments quoted one per line (a long one
/// cut into rows, nothing left out), then the question. Drawing and the keys
/// use the same rows, so `y` is taken only once the last was shown.
pub fn trust_rows(t: &overlay::TrustOpener, size: (u16, u16)) -> Vec<String> {
    let width = trust_width(size);
    let mut rows = vec![format!(
        "{} names this opener:",
        escape(&t.file.to_string_lossy())
    )];
    for arg in t.argv.iter().chain(std::iter::once(&t.target)) {
        // quoted, so spaces and empty arguments show; escaped, so nothing is hidden
        let shown = escape(&shell_words::quote(arg)).into_owned();
        let (mut row, mut used) = (String::from("  "), 2);
        for ch in shown.chars() {
            // display columns, as the terminal draws it (wide characters take two)
            let w = ratatui::text::Span::raw(ch.to_string()).width();
            if used + w > width {
                rows.push(std::mem::replace(&mut row, String::from("  ")));
                used = 2;
            }
            row.push(ch);
            used += w;
        }
        rows.push(row);
    }
    rows.push("Trust it (remembered until the file changes)?".into());
    rows
}
