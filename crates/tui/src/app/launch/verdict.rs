//! A person's verdict for a case no process can judge: the prompt's state (the
//! steps ticked, the verdict picked, the note), the queue of cases waiting for one,
//! and what giving it changes at once (the live pane, the run record's row).

use super::super::super::action::Command;
use super::super::{App, Effect, Overlay, Prompt as PromptOverlay};
use std::fmt::Write as _;
use testdeck_exec::record::Verdict;

/// A person's verdict being given for a case no process can judge.
#[derive(Debug, Clone)]
pub struct Judging {
    pub case_id: String,
    pub title: String,
    pub steps: Vec<String>,
    /// The launch (index into the runtime's handles) that holds the run record.
    pub launch: usize,
    pub choice: usize,
    pub note: String,
    /// Typing the note (otherwise keys pick the verdict).
    pub editing_note: bool,
    /// Which steps the person ticked (kept while the prompt is open; written into
    /// the note when any is ticked: a run record's result has no field for them).
    pub ticked: Vec<bool>,
    /// The row under the cursor: a step (`< steps.len()`), else a verdict.
    pub cursor: usize,
    /// This prompt's place among the verdicts asked in a row (1-based).
    pub nth: usize,
}

impl Judging {
    /// The prompt for case `case_id` of launch `launch`; `steps` already expanded
    /// (through the catalog's vars). The cursor starts on the first verdict.
    pub fn new(case_id: String, title: String, steps: Vec<String>, launch: usize) -> Judging {
        Judging {
            case_id,
            title,
            ticked: vec![false; steps.len()],
            cursor: steps.len(),
            steps,
            launch,
            choice: 0,
            note: String::new(),
            editing_note: false,
            nth: 1,
        }
    }

    /// Move the cursor over steps and verdicts (wrapping); on a verdict it picks it.
    pub fn step(&mut self, d: isize) {
        let n = self.steps.len() + VERDICTS.len();
        // `rem_euclid` of a row count that fits the screen
        let at = isize::try_from(self.cursor).unwrap_or(0) + d;
        self.cursor = usize::try_from(at.rem_euclid(isize::try_from(n).unwrap_or(1))).unwrap_or(0);
        if let Some(v) = self.cursor.checked_sub(self.steps.len()) {
            self.choice = v;
        }
    }

    /// Tick (or untick) the step under the cursor.
    pub fn toggle(&mut self) {
        if let Some(t) = self.ticked.get_mut(self.cursor) {
            *t = !*t;
        }
    }

    /// The note to record: the person's, and which steps were ticked when any was.
    pub fn recorded_note(&self) -> Option<String> {
        let own = self.note.trim();
        let done = self.ticked.iter().filter(|t| **t).count();
        let ticks = (done > 0).then(|| {
            let open: Vec<String> = self
                .ticked
                .iter()
                .enumerate()
                .filter(|(_, t)| !**t)
                .map(|(i, _)| (i + 1).to_string())
                .collect();
            let mut s = format!("steps checked {done}/{}", self.steps.len());
            if !open.is_empty() {
                let _ = write!(s, " (not: {})", open.join(", "));
            }
            s
        });
        match (own.is_empty(), ticks) {
            (true, None) => None,
            (false, None) => Some(own.to_owned()),
            (true, Some(t)) => Some(t),
            (false, Some(t)) => Some(format!("{own} · {t}")),
        }
    }
}

/// The verdicts a person may give, in the order the prompt lists them.
pub const VERDICTS: [Verdict; 4] = [
    Verdict::Pass,
    Verdict::Fail,
    Verdict::EnvironmentFail,
    Verdict::Skipped,
];

impl App {
    /// A case launch `index` ran ended needing a person: its verdict prompt waits
    /// in the queue, with the checklist as the person must follow it (`${VAR}`
    /// expanded by the catalog's vars, as the run expands `how.steps`).
    pub(super) fn queue_verdict(&mut self, id: &str, index: usize) {
        let case = self
            .ws
            .as_ref()
            .and_then(|w| w.catalog.as_ref())
            .and_then(|c| c.case(id));
        let vars = self.vars();
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
        self.launch.judge_queue.push_back(Judging::new(
            id.to_owned(),
            case.map(|c| c.title.clone()).unwrap_or_default(),
            steps,
            index,
        ));
    }

    /// The next verdict prompt, once no overlay or input is open (a verdict waits
    /// for them to close); the count of prompts in a row starts again when none waits.
    pub(crate) fn ask_next_verdict(&mut self) {
        if self.layers.overlay().is_some() || self.layers.input().is_some() {
            return;
        }
        if let Some(mut j) = self.launch.judge_queue.pop_front() {
            self.launch.verdicts_asked += 1;
            j.nth = self.launch.verdicts_asked;
            self.layers
                .open(Overlay::Prompt(PromptOverlay::Judge(Box::new(j))));
            self.dirty = true;
        } else {
            self.launch.verdicts_asked = 0;
        }
    }

    /// A key on the verdict prompt: move over steps and verdicts, tick a step,
    /// type the note, give the verdict (Enter) or leave the case not-run (Esc).
    pub(super) fn judge_command(&mut self, mut j: Box<Judging>, c: Command) -> Vec<Effect> {
        if j.editing_note {
            // Enter or Esc ends the note; the verdict is still to give
            if matches!(c, Command::Confirm | Command::Close) {
                j.editing_note = false;
            } else if c == Command::ClearInput {
                j.note.clear();
            }
            self.layers.open(Overlay::Prompt(PromptOverlay::Judge(j)));
            return Vec::new();
        }
        let n = VERDICTS.len();
        match c {
            Command::MoveDown => j.step(1),
            Command::MoveUp => j.step(-1),
            Command::ToggleStep => j.toggle(),
            Command::Filter => j.editing_note = true,
            Command::Confirm => {
                let verdict = VERDICTS[j.choice.min(n - 1)];
                self.notice = Some(format!(
                    "{}: {} (judged by a person)",
                    j.case_id,
                    verdict.as_str()
                ));
                let note = j.recorded_note();
                // every pane that shows this case changes now, not after
                // the next launch: the live pane's end row, the run
                // record's row and the catalog row's latest verdict
                self.live.judged(&j.case_id, verdict);
                if self
                    .runs
                    .judged(j.launch, &j.case_id, verdict, note.clone())
                    .is_some()
                {
                    self.records_changed();
                }
                return vec![Effect::Judge {
                    index: j.launch,
                    case_id: j.case_id,
                    verdict,
                    note,
                }];
            }
            Command::Close => {
                self.notice = Some(format!("{}: left not-run", j.case_id));
                return Vec::new();
            }
            _ => {}
        }
        self.layers.open(Overlay::Prompt(PromptOverlay::Judge(j)));
        Vec::new()
    }
}
