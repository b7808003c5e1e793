//! Opening an artifact: the core decides which command opens it (`openers`); the
//! workspace's own opener is shown and trusted by the person before it first runs.

use super::super::action::Command;
use super::{App, Effect, Overlay, Prompt, overlay};
use std::path::Path;
use testdeck_core::sanitize::escape;

impl App {
    /// `o`: open the selected artifact with its opener.
    pub(super) fn open_artifact(&mut self) -> Vec<Effect> {
        use testdeck_core::workspace::openers::{self, Decision, OpenerKind};
        let (kind, shown, file) = match self.live.artifact_to_open(&self.opts.root) {
            Ok(a) => a,
            Err(why) => {
                self.notice = Some(why);
                return Vec::new();
            }
        };
        // which command runs is the core's decision; the TUI only asks
        let slot = OpenerKind::of(&kind, &shown);
        // absolute: the opener runs in the workspace root, not in testdeck's directory
        let file = std::path::absolute(&file).unwrap_or(file);
        let target = file.to_string_lossy().into_owned();
        match openers::decide(&self.opts.root, &self.opener_places, slot) {
            Decision::Nothing => {
                discard(&file);
                self.notice = Some("no opener configured ([open] is empty)".into());
                Vec::new()
            }
            Decision::Run(mut argv) => {
                argv.push(target);
                self.notice = Some(format!("opening {}", escape(&shown)));
                vec![Effect::Spawn(argv)]
            }
            Decision::Ask { argv, file } => {
                self.layers
                    .open(Overlay::Prompt(Prompt::TrustOpener(Box::new(
                        overlay::TrustOpener {
                            slot,
                            argv,
                            file,
                            target,
                            shown,
                        },
                    ))));
                Vec::new()
            }
        }
    }

    /// A key on the trust question: Enter trusts the workspace's opener (and
    /// remembers it) and opens the file; anything else opens nothing.
    pub(super) fn trust_command(&mut self, t: overlay::TrustOpener, c: Command) -> Vec<Effect> {
        if c != Command::Confirm {
            discard(Path::new(&t.target));
            self.notice = Some(format!(
                "not opened: the workspace's opener for {} is not trusted",
                escape(&t.shown)
            ));
            return Vec::new();
        }
        let root = self.opts.root.clone();
        self.notice = Some(
            match testdeck_core::workspace::openers::trust(
                &root,
                &self.opener_places,
                t.slot,
                &t.argv,
            ) {
                Ok(()) => format!("opening {} (opener trusted)", escape(&t.shown)),
                Err(e) => format!(
                    "opening {} (trusted this once; not remembered: {})",
                    escape(&t.shown),
                    escape(&e.to_string())
                ),
            },
        );
        let mut argv = t.argv;
        argv.push(t.target);
        vec![Effect::Spawn(argv)]
    }
}

/// Remove the private copy made for an opener that will not run (its folder
/// holds only it).
fn discard(copy: &Path) {
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
