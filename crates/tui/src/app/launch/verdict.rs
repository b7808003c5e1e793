//! A person's verdict for a case no process can judge: the prompt's state (the
//! steps ticked, the verdict picked, the note), the queue of cases waiting for one,
//! and what giving it changes at once (the live pane, the run record's row).

use super::super::super::action::Command;
use super::super::effect::Effect;
use super::super::live::launch::Shown;
use super::super::overlay::{Overlay, Prompt as PromptOverlay};
use super::super::pane::{Component, Ctx, Published, Shared};
use super::super::prompt::{Judging, VERDICTS};
use super::Launch;

impl Launch {
    /// A case launch `index` ran ended needing a person: its verdict prompt waits
    /// in the queue, with the checklist as the person must follow it (`${VAR}`
    /// expanded by the catalog's vars, as the run expands `how.steps`).
    pub(super) fn verdict_wanted(&mut self, id: &str, index: usize, s: &Shared) {
        let case =
            s.ws.and_then(|w| w.catalog.as_ref())
                .and_then(|c| c.case(id));
        let vars = super::vars(s);
        let steps = case.map_or_else(Vec::new, |c| {
            c.how
                .steps
                .iter()
                .map(|s| {
                    vars.as_ref()
                        .map_or_else(|| s.clone(), |v| v.expand(s).text)
                })
                .collect()
        });
        self.judge_queue.push_back(Judging::new(
            id.to_owned(),
            case.map(|c| c.title.clone()).unwrap_or_default(),
            steps,
            index,
        ));
    }

    /// A key on the verdict prompt: move over steps and verdicts, tick a step,
    /// type the note, give the verdict (Enter) or leave the case not-run (Esc).
    pub(super) fn judge_command(mut j: Box<Judging>, c: Command, cx: &mut Ctx) {
        if j.editing_note {
            // Enter or Esc ends the note; the verdict is still to give
            if matches!(c, Command::Confirm | Command::Close) {
                j.editing_note = false;
            } else if c == Command::ClearInput {
                j.note.clear();
            }
            cx.open(Overlay::Prompt(PromptOverlay::Judge(j)));
            return;
        }
        let n = VERDICTS.len();
        match c {
            Command::MoveDown => j.step(1),
            Command::MoveUp => j.step(-1),
            Command::ToggleStep => j.toggle(),
            Command::Filter => j.editing_note = true,
            Command::Confirm => {
                let verdict = VERDICTS[j.choice.min(n - 1)];
                cx.say(format!(
                    "{}: {} (judged by a person)",
                    j.case_id,
                    verdict.as_str()
                ));
                let note = j.recorded_note();
                cx.effect([Effect::Judge {
                    index: j.launch,
                    case_id: j.case_id.clone(),
                    verdict,
                    note,
                }]);
                // every pane that shows this case changes now, not after
                // the next launch: the live pane's end row, the run
                // record's row and the catalog row's latest verdict
                let shown = Shown::Judged(j.case_id.clone(), verdict);
                cx.publish(Published::Live(Box::new(shown)));
                cx.publish(Published::Judged(j, verdict));
                return;
            }
            Command::Close => {
                cx.say(format!("{}: left not-run", j.case_id));
                return;
            }
            _ => {}
        }
        cx.open(Overlay::Prompt(PromptOverlay::Judge(j)));
    }
}

/// A subscriber: after a change, the next verdict queued is asked once no
/// overlay or input line has the keys; the count
/// of prompts in a row starts again when none waits.
impl Component for Launch {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed)
    }

    fn on_event(&mut self, _: &Published, cx: &mut Ctx) {
        if cx.shared.asking {
            return;
        }
        if let Some(mut j) = self.judge_queue.pop_front() {
            self.verdicts_asked += 1;
            j.nth = self.verdicts_asked;
            cx.open(Overlay::Prompt(PromptOverlay::Judge(Box::new(j))));
        } else {
            self.verdicts_asked = 0;
        }
    }
}
