//! The prompts' data — a launch's authorization question, a person's verdict being
//! given, a launch's preview — as plain values. The launch fills them in and answers
//! them, the overlay stack holds the one on screen, the view reads them: defined here,
//! they tie neither of those to the other.

use std::fmt::Write as _;
use testdeck_exec::record::Verdict;
use testdeck_exec::{Grantable, LaunchPlan, Prompt};

/// A launch waiting for its prompts to be answered.
#[derive(Debug, Clone)]
pub struct Asking {
    pub plan: LaunchPlan,
    /// The question on screen, and the case that raised it.
    pub prompt: Prompt,
    /// What the person typed (typed prompts only).
    pub typed: String,
    /// Answered "no": never asked again in this launch (those cases are skipped).
    pub declined: Vec<Grantable>,
    /// Cases skipped already, with the reason (shown when the launch starts).
    pub skipped: Vec<(String, String)>,
    /// What the status line says before and after `launched…` when the launch
    /// starts without a question first (`rerun failed (N): `, ` · 2 excluded: …`).
    pub framed: (String, String),
}

impl Asking {
    /// Whether this prompt needs the word typed rather than `y`.
    pub fn typed(&self) -> bool {
        matches!(self.prompt, Prompt::Destructive { .. })
    }
}

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

/// What a launch of more than one case will do, shown before it starts (Enter
/// goes on to its prompts, Esc cancels).
#[derive(Debug, Clone, Default)]
pub struct Preview {
    /// The tests targets and catalog ids to launch (temp cases not among them
    /// unless `with_temp`).
    pub tests: Vec<(String, Option<String>)>,
    pub catalog: Vec<String>,
    /// `F`: the failed temp cases, left out unless the person brings them in.
    pub temp: Vec<(String, Option<String>)>,
    pub with_temp: bool,
    /// Left out before the plan (a failed orphan has no test file), with why.
    pub left_out: Vec<(String, String)>,
    /// `F` (rerun failed) rather than `r`.
    pub rerun: bool,
    /// The one line: N cases, M need authorization, K excluded and why.
    pub line: String,
    /// The cases by name, each with what the launch does with it.
    pub rows: Vec<String>,
    /// The first row of `rows` shown (j / k scroll them).
    pub scroll: usize,
    /// The max risk of this launch, raised in the preview (`m`); the session's
    /// otherwise.
    pub risk: Option<testdeck_exec::Risk>,
    /// What `m` would raise the max risk to: only the max risk leaves cases out.
    pub raise: Option<testdeck_exec::Risk>,
}
