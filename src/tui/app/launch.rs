//! Launching from the cockpit: the plan for the marked (or selected) cases, the
//! authorization prompts asked one at a time (safe by default), and the verdict a
//! person gives for a case no process can judge. Pure: the runtime does the launching.

use super::super::action::Command;
use super::{App, Effect, Overlay, Prompt as PromptOverlay, RunRow, Tab};
use crate::exec::record::Verdict;
use crate::exec::{
    self, Decision, GrantSource, Grantable, Grants, LaunchContext, LaunchPlan, Prompt, Risk,
    TestsTarget,
};
use crate::sanitize::escape;
use crate::workspace::Workspace;
use crate::workspace::cases::{CaseRef, CaseRow, NodeKind};
use crate::workspace::logs::RawRun;
use crate::workspace::timeline::TimelineEvent;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

/// The word a person types to authorize destructive cases (a key press never can).
pub const DESTRUCTIVE_WORD: &str = "destructive";

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
}

impl Asking {
    /// Whether this prompt needs the word typed rather than `y`.
    pub fn typed(&self) -> bool {
        matches!(self.prompt, Prompt::Destructive { .. })
    }
}

/// What a launch of more than one case will do, shown before it starts (Enter
/// goes on to its prompts, Esc cancels).
#[derive(Debug, Clone)]
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
}

/// What a plan will do, counted before it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outlook {
    /// Cases that will run or be asked about.
    pub cases: usize,
    /// Of those, the ones a prompt must authorize first.
    pub need_auth: usize,
    /// Cases left out, each with why.
    pub excluded: Vec<(String, String)>,
}

impl Outlook {
    /// `12 cases · 2 need authorization · 3 excluded: A (why); B (why); +1 more`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{} {}",
            self.cases,
            if self.cases == 1 { "case" } else { "cases" }
        );
        if self.need_auth > 0 {
            let _ = write!(s, " · {} need authorization", self.need_auth);
        }
        if !self.excluded.is_empty() {
            let shown: Vec<String> = self
                .excluded
                .iter()
                .take(3)
                .map(|(id, why)| format!("{id} ({why})"))
                .collect();
            let _ = write!(
                s,
                " · {} excluded: {}",
                self.excluded.len(),
                shown.join("; ")
            );
            if self.excluded.len() > 3 {
                let _ = write!(s, "; +{} more", self.excluded.len() - 3);
            }
        }
        escape(&s).into_owned()
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

/// The plan for `keys` (tests keys `scope/caseId` or folder scopes, and `catalog:ID`).
pub fn plan_for(
    ws: &Workspace,
    tests: &[(String, Option<String>)],
    catalog_ids: &[String],
    max_risk: Risk,
    grants: &Grants,
) -> LaunchPlan {
    let mut by_scope: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut targets = Vec::new();
    for (scope, case) in tests {
        match case {
            Some(c) => by_scope.entry(scope.clone()).or_default().push(c.clone()),
            None => targets.push(TestsTarget::Scope(scope.clone())),
        }
    }
    for (scope, case_ids) in by_scope {
        targets.push(TestsTarget::Cases { scope, case_ids });
    }
    let _ = ws;
    LaunchPlan {
        tests: targets,
        runs: None,
        headless: false,
        grants: grants.clone(),
        catalog: exec::CatalogPlan {
            ids: catalog_ids.to_vec(),
            max_risk: Some(max_risk),
            label: "tui".into(),
        },
    }
}

/// The next question for `plan` (none: launch), and what will be skipped: the
/// core's one decision (`exec::decisions`), each `NeedsPrompt` turned into a
/// question, the strictest first (a remote HOST before any case). What was
/// declined is refused in the plan's grants, so the core skips it — and every
/// other member of its `run_together` group.
pub fn next_prompt(
    ctx: &LaunchContext,
    plan: &LaunchPlan,
    declined: &[Grantable],
) -> (Option<Prompt>, Vec<(String, String)>) {
    let mut plan = plan.clone();
    for d in declined {
        plan.grants.refuse(d.clone());
    }
    let ds = exec::decisions(ctx, &plan);
    let skipped = ds
        .iter()
        .filter_map(|(id, d)| match d {
            Decision::Skip(r) => Some((id.clone(), r.clone())),
            _ => None,
        })
        .collect();
    (exec::policy::next_prompt(&ds).cloned(), skipped)
}

/// ` — ID: why` for the first case a launch skipped or did not run (`+N more`),
/// so the status line says why and not only how many.
pub fn skip_reasons(results: &[crate::exec::ResultLine]) -> String {
    let left: Vec<&crate::exec::ResultLine> = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Skipped | Verdict::NotRun) && r.reason.is_some())
        .collect();
    let Some(first) = left.first() else {
        return String::new();
    };
    let mut s = format!(
        " — {}: {}",
        escape(&first.id),
        escape(first.reason.as_deref().unwrap_or_default())
    );
    if left.len() > 1 {
        let _ = write!(s, " (+{} more)", left.len() - 1);
    }
    s
}

/// Record an answer: a grant for this session, or a refusal for this launch.
pub fn answer(a: &mut Asking, grants: &mut Grants, yes: bool) {
    let what = a.prompt.grants();
    if yes {
        grants.grant(what.clone(), GrantSource::Prompt);
        a.plan.grants.grant(what, GrantSource::Prompt);
    } else {
        a.plan.grants.refuse(what.clone());
        a.declined.push(what);
    }
    a.typed.clear();
}

/// The lines of a prompt: what will happen, to what, where.
pub fn prompt_text(p: &Prompt) -> (String, Vec<String>) {
    match p {
        Prompt::Mutating { case, host } => (
            "Authorize mutating cases?".into(),
            vec![
                format!("case  {case}"),
                "risk  mutating: changes data on the test service".into(),
                format!("HOST  {host}"),
                "Holds for this session (never written to disk).".into(),
            ],
        ),
        Prompt::Destructive { case, host } => (
            "Authorize destructive cases?".into(),
            vec![
                format!("case  {case}"),
                "risk  destructive: deletes or resets data".into(),
                format!("HOST  {host}"),
                format!("Type {DESTRUCTIVE_WORD} and Enter to authorize; anything else is no."),
            ],
        ),
        Prompt::Gate {
            case,
            gate,
            variable,
        } => (
            format!("Open gate {gate}?"),
            vec![
                format!("case  {case}"),
                format!(
                    "gate  {gate}{}",
                    variable
                        .as_ref()
                        .map_or(String::new(), |v| format!(" ({v})"))
                ),
                "Holds for this session (never written to disk).".into(),
            ],
        ),
        Prompt::Live { case } => (
            "Run a live case?".into(),
            vec![
                format!("case  {case}"),
                "It calls a real model: it spends real calls and money.".into(),
            ],
        ),
        Prompt::Remote { host } => (
            "HOST is not loopback".into(),
            vec![
                format!("HOST  {host}"),
                "Every case of this launch (readonly and tests-tree ones too)".into(),
                "and every probe and API check will reach this remote service.".into(),
                "Nothing is sent until you answer. Go on against it?".into(),
            ],
        ),
    }
}

// ---- the app's side: targets, prompts, launch events --------------------------

impl App {
    /// What `r` launches: the marked cases, or else the selection.
    fn launch_targets(&self) -> (Vec<(String, Option<String>)>, Vec<String>) {
        let mut tests = Vec::new();
        let mut catalog = Vec::new();
        let by_key: HashMap<&str, &CaseRow> = self
            .tests
            .cases
            .iter()
            .map(|c| (c.key.as_str(), c))
            .collect();
        let add_case = |c: &CaseRow, tests: &mut Vec<(String, Option<String>)>| {
            if !c.orphan() {
                tests.push((c.scope.clone(), Some(c.case_id.clone())));
            }
        };
        if !self.marks.is_empty() {
            for m in &self.marks {
                if let Some(id) = m.catalog_id() {
                    catalog.push(id.to_owned());
                } else if let Some(c) = by_key.get(m.target().as_str()) {
                    add_case(c, &mut tests);
                }
            }
            return (tests, catalog);
        }
        match self.tab {
            Tab::Tests => match self
                .tests
                .selected_node()
                .map(|n| (n.kind.clone(), n.key.clone()))
            {
                Some((NodeKind::Case(c), _)) => add_case(&self.tests.cases[c], &mut tests),
                Some((NodeKind::Folder, key)) => tests.push((key, None)),
                None => {}
            },
            Tab::Catalog => {
                let cat = self.ws.as_ref().and_then(|w| w.catalog.as_ref());
                catalog.extend(cat.and_then(|cat| self.catalog.launch_id(cat)));
            }
            Tab::Runs => {
                if let Some(c) = self
                    .selected_run()
                    .and_then(|r| by_key.get(r.key().as_str()))
                {
                    add_case(c, &mut tests);
                }
            }
        }
        (tests, catalog)
    }

    pub(super) fn start_launch(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            self.notice = Some("still indexing".into());
            return Vec::new();
        };
        let (tests, catalog) = self.launch_targets();
        if tests.is_empty() && catalog.is_empty() {
            self.notice = Some("nothing to run here (an orphan has no test file)".into());
            return Vec::new();
        }
        let _ = ws;
        self.preview_or_launch(
            Preview {
                tests,
                catalog,
                temp: Vec::new(),
                with_temp: false,
                left_out: Vec::new(),
                rerun: false,
                line: String::new(),
            },
            false,
        )
    }

    /// What `plan` will do: the cases it runs (a folder counts its cases), those a
    /// prompt must authorize, and what the selection and the policy leave out —
    /// from the same decisions the launch takes (`exec::decisions`).
    pub fn outlook(&self, plan: &LaunchPlan, left_out: &[(String, String)]) -> Outlook {
        let Some(ws) = &self.ws else {
            return Outlook::default();
        };
        let ctx = crate::exec::LaunchContext::of(ws);
        let size = |t: &TestsTarget| match t {
            TestsTarget::Cases { case_ids, .. } => case_ids.len(),
            TestsTarget::Scope(scope) => self
                .tests
                .cases
                .iter()
                .filter(|c| {
                    !c.orphan()
                        && (c.scope == *scope
                            || c.scope
                                .strip_prefix(scope.as_str())
                                .is_some_and(|r| r.starts_with('/')))
                })
                .count(),
        };
        let targets = crate::exec::tests_run::merge_targets(plan.tests.clone());
        let sizes: HashMap<String, usize> = targets.iter().map(|t| (t.label(), size(t))).collect();
        let mut o = Outlook {
            excluded: left_out.to_vec(),
            ..Outlook::default()
        };
        if let (Some(cat), Some(vars)) = (&ctx.catalog, self.vars()) {
            if !plan.catalog.ids.is_empty() {
                let sel = crate::exec::catalog_run::selection(cat, &vars, &plan.catalog);
                o.excluded
                    .extend(sel.excluded.into_iter().map(|e| (e.id, e.reason)));
            }
        }
        for (id, d) in exec::decisions(&ctx, plan) {
            let n = sizes.get(&id).copied().unwrap_or(1);
            match d {
                Decision::Allowed(_) => o.cases += n,
                Decision::NeedsPrompt(_) => {
                    o.cases += n;
                    o.need_auth += n;
                }
                Decision::Skip(why) => o.excluded.push((id, why)),
            }
        }
        o
    }

    /// Launch `p` at once when it is one case; else (or when the preview is open
    /// already: `stay`) show what it will do first.
    fn preview_or_launch(&mut self, mut p: Preview, stay: bool) -> Vec<Effect> {
        let mut tests = p.tests.clone();
        if p.with_temp {
            tests.extend(p.temp.iter().cloned());
        }
        let asking = self.asking(&tests, &p.catalog);
        let mut left = p.left_out.clone();
        if !p.with_temp {
            left.extend(p.temp.iter().map(|(scope, case)| {
                (
                    case.as_ref()
                        .map_or_else(|| scope.clone(), |c| format!("{scope}/{c}")),
                    "temp case: t brings temp cases in".to_owned(),
                )
            }));
        }
        let o = self.outlook(&asking.plan, &left);
        if o.cases <= 1 && !stay {
            let fx = self.ask_or_launch(asking);
            // say what was left out, even when one case runs at once
            if !left.is_empty() && fx.iter().any(|e| matches!(e, Effect::Launch { .. })) {
                let prev = self.notice.take().unwrap_or_default();
                let why = Outlook {
                    excluded: left,
                    ..Outlook::default()
                }
                .line();
                self.notice = Some(format!("{prev} · {}", why.trim_start_matches("0 cases · ")));
            }
            return fx;
        }
        p.line = o.line();
        self.overlay = Some(Overlay::Prompt(PromptOverlay::Preview(Box::new(p))));
        Vec::new()
    }

    /// Ask the next question of a launch, or launch it when none is left.
    pub(crate) fn ask_or_launch(&mut self, mut a: Asking) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let ctx = crate::exec::LaunchContext::of(ws);
        let (next, skipped) = next_prompt(&ctx, &a.plan, &a.declined);
        a.skipped = skipped;
        if let Some(p) = next {
            a.prompt = p;
            a.typed.clear();
            self.overlay = Some(Overlay::Prompt(PromptOverlay::Authorize(Box::new(a))));
            return Vec::new();
        }
        // the prompts were a watch's: it starts watching what was authorized
        if let Some(msg) = self.watch.ready(ws, &a.plan.grants, self.risk()) {
            self.marks.clear();
            self.notice = Some(msg);
            return vec![self.watch.job(&self.grants, self.risk())];
        }
        let index = self.launches;
        self.launches += 1;
        self.running += 1;
        self.marks.clear();
        self.notice = Some(if a.skipped.is_empty() {
            "launched".to_owned()
        } else {
            format!(
                "launched; skipped: {}",
                a.skipped
                    .iter()
                    .map(|(id, r)| format!("{id} ({r})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        vec![Effect::Launch {
            index,
            plan: Box::new(a.plan),
            ctx: Box::new(ctx),
        }]
    }

    /// Several events of a launch at once, in order (a flood of output comes in
    /// batches): the live pane is refiltered once, so applying a batch costs the
    /// same whatever the pane already holds.
    pub(crate) fn exec_events<I: Into<crate::tui::launch_queue::Item>>(
        &mut self,
        index: usize,
        evs: impl IntoIterator<Item = I>,
    ) -> Vec<Effect> {
        use crate::tui::launch_queue::Item;
        self.live.begin_batch();
        let mut fx = Vec::new();
        for item in evs {
            match item.into() {
                Item::Event(ev) => fx.extend(self.exec_event(index, ev)),
                // a flood's events the queue dropped: counted as not loaded
                Item::Skipped { id, n } => self.live.skipped(&id, n),
            }
        }
        self.live.end_batch();
        self.clamp();
        fx
    }

    pub(crate) fn exec_event(&mut self, index: usize, ev: crate::exec::ExecEvent) -> Vec<Effect> {
        use crate::exec::ExecEvent as E;
        let note = |kind: &str, name: &str, status: &str, message: String| TimelineEvent {
            kind: kind.into(),
            name: name.into(),
            status: status.into(),
            message,
            ..TimelineEvent::default()
        };
        match ev {
            E::RunStart { run_id, .. } => {
                self.notice = Some(format!("run record {}", escape(&run_id)));
                self.runs.launched.insert(index, run_id);
                Vec::new()
            }
            E::RunnerStart { command } => {
                self.notice = Some(format!("runner: {}", escape(&command.join(" "))));
                self.live.stderr_tail.clear();
                Vec::new()
            }
            E::Probe { category, probe } => {
                if let Some(p) = probe {
                    let msg = serde_json::to_string(&p).unwrap_or_default();
                    self.notice = Some(format!("probe {}: {}", escape(&category), escape(&msg)));
                }
                Vec::new()
            }
            E::CaseStart {
                id,
                command,
                path,
                risk,
                ..
            } => {
                if let Some(p) = &path {
                    self.changes.launched.insert(p.clone());
                }
                let fx = self.live.show_launch(&id, path.as_deref());
                self.live.opened_for = Some(index);
                let msg = command.unwrap_or_default();
                let risk = risk.map_or(String::new(), |r| format!(" [{}]", r.as_str()));
                let cap = self.timeline_cap;
                self.live.push(
                    &id,
                    note("run", &format!("start {id}{risk}"), "info", msg),
                    cap,
                );
                fx
            }
            E::Output { id, stream, line } => {
                // tagged in the type column, no name: dimmed, and `O` hides them
                let kind = match stream {
                    crate::exec::process::Stream::Stdout => super::live::OUT,
                    crate::exec::process::Stream::Stderr => super::live::ERR,
                };
                if id != crate::exec::tests_run::RUNNER_ID {
                    self.live
                        .push(&id, note(kind, "", "", line), self.timeline_cap);
                    return Vec::new();
                }
                if kind == super::live::ERR {
                    let tail = &mut self.live.stderr_tail;
                    tail.push_back(line.clone());
                    if tail.len() > super::live::STDERR_TAIL {
                        tail.pop_front();
                    }
                }
                let cap = self.timeline_cap;
                self.live
                    .push_runner_line(index, note(kind, "", "", line), cap)
            }
            E::Timeline { id, event, .. } => {
                self.live.push(&id, *event, self.timeline_cap);
                Vec::new()
            }
            E::CaseEnd(r) => {
                let status = super::live::status_of(r.verdict);
                let reason = r.reason.clone().unwrap_or_default();
                let fx = self.left_out_in_live(&r.id, r.verdict, &reason);
                self.live.push(
                    &r.id,
                    note(
                        "run",
                        &format!("end {}", r.verdict.as_str()),
                        status,
                        reason.clone(),
                    ),
                    self.timeline_cap,
                );
                if self.live.launch.as_deref() == Some(r.id.as_str()) {
                    if let Some(run) = self.live.run.as_mut() {
                        run.in_progress = false;
                    }
                }
                self.notice = Some(format!(
                    "{}: {} {}",
                    escape(&r.id),
                    r.verdict.as_str(),
                    escape(&reason)
                ));
                if r.verdict == crate::exec::record::Verdict::NotRun
                    && reason.starts_with(crate::exec::catalog_run::NEEDS_A_PERSON)
                {
                    let case = self
                        .ws
                        .as_ref()
                        .and_then(|w| w.catalog.as_ref())
                        .and_then(|c| c.case(&r.id));
                    // the checklist as the person must follow it: `${VAR}` expanded
                    // by the catalog's vars, as the run expands `how.steps`
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
                    self.judge_queue.push_back(Judging::new(
                        r.id.clone(),
                        case.map(|c| c.title.clone()).unwrap_or_default(),
                        steps,
                        index,
                    ));
                }
                fx
            }
            E::RunnerExit {
                reason,
                exit_code,
                signal,
                runs,
            } => {
                let Some(r) = reason else {
                    return Vec::new();
                };
                self.notice = Some(format!("runner: {}", escape(&r)));
                if !runs.is_empty() || r == "cancelled" {
                    return Vec::new();
                }
                // no run to show: the pane keeps how the runner ended and what it
                // last said on stderr, and the launch's closing notice repeats it
                let status = match (exit_code, signal) {
                    (Some(c), _) => format!("exit {c}"),
                    (None, Some(s)) => format!("signal {s}"),
                    (None, None) => "not started".to_owned(),
                };
                let tail: Vec<String> = self.live.stderr_tail.iter().cloned().collect();
                let last = tail.last().map_or(String::new(), |l| format!(" · {l}"));
                let mut ev = note(
                    "run",
                    &format!("runner {status}"),
                    "failed",
                    format!("{r}{last}"),
                );
                ev.data = serde_json::json!({ "stderr": tail });
                self.live.exit_note = Some(format!("{r}{last}"));
                let cap = self.timeline_cap;
                self.live.push_runner_line(index, ev, cap)
            }
            E::Summary(s) => {
                self.running = self.running.saturating_sub(1);
                // the launch's run shown is read again (artifacts, details) after the reload
                if self.live.launch.is_some() {
                    self.changes.reread = self.live.run.as_ref().map(|r| r.path.clone());
                }
                let exit = self
                    .live
                    .exit_note
                    .take()
                    .map_or(String::new(), |n| format!(" — runner: {}", escape(&n)));
                self.notice = Some(format!(
                    "launch done: {}{}{exit}",
                    super::watch::counts(&s.results),
                    skip_reasons(&s.results)
                ));
                vec![Effect::Reload]
            }
        }
    }

    /// A case of the launch that ends without having started (skipped, or left
    /// out with its `run_together` group): its reason goes into the live pane —
    /// the launch's view, opened for it when nothing of the launch is shown yet.
    fn left_out_in_live(&mut self, id: &str, verdict: Verdict, reason: &str) -> Vec<Effect> {
        if !matches!(verdict, Verdict::Skipped | Verdict::NotRun)
            || self.live.launch.as_deref() == Some(id)
        {
            return Vec::new();
        }
        let mut fx = Vec::new();
        if self.live.launch.is_none() {
            fx = self.live.show_launch(id, None);
        }
        let Some(shown) = self.live.launch.clone() else {
            return fx;
        };
        self.live.push(
            &shown,
            TimelineEvent {
                kind: "run".into(),
                name: format!("{} {id}", verdict.as_str()),
                status: "skipped".into(),
                message: reason.to_owned(),
                ..TimelineEvent::default()
            },
            self.timeline_cap,
        );
        fx
    }

    pub(super) fn prompt_command(&mut self, p: PromptOverlay, c: Command) -> Vec<Effect> {
        match (p, c) {
            (PromptOverlay::Preview(p), Command::Confirm) => {
                let rerun = p.rerun;
                let mut tests = p.tests.clone();
                if p.with_temp {
                    tests.extend(p.temp.iter().cloned());
                }
                let n = tests.len() + p.catalog.len();
                let a = self.asking(&tests, &p.catalog);
                let fx = self.ask_or_launch(a);
                if fx.iter().any(|e| matches!(e, Effect::Launch { .. })) {
                    let prev = self.notice.take().unwrap_or_default();
                    self.notice = Some(if rerun {
                        format!("rerun failed ({n}): {prev}")
                    } else {
                        prev
                    });
                }
                fx
            }
            (PromptOverlay::Preview(mut p), Command::IncludeTemp) if !p.temp.is_empty() => {
                p.with_temp = !p.with_temp;
                self.preview_or_launch(*p, true)
            }
            (PromptOverlay::Preview(_), Command::Close) => {
                self.notice = Some("not launched".into());
                Vec::new()
            }
            (PromptOverlay::QuitLive, Command::Confirm) => {
                self.quit = true;
                vec![Effect::Quit]
            }
            (PromptOverlay::Authorize(mut a), Command::Confirm | Command::Close) => {
                let yes =
                    c == Command::Confirm && (!a.typed() || a.typed.trim() == DESTRUCTIVE_WORD);
                if a.typed() && c == Command::Confirm && !yes {
                    self.notice = Some(format!(
                        "not authorized: type {DESTRUCTIVE_WORD} to authorize"
                    ));
                }
                answer(&mut a, &mut self.grants, yes);
                self.ask_or_launch(*a)
            }
            (PromptOverlay::TrustOpener(t), Command::Confirm) => {
                let root = self.opts.root.clone();
                self.notice = Some(
                    match crate::workspace::openers::trust(
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
            (PromptOverlay::TrustOpener(t), _) => {
                self.notice = Some(format!(
                    "not opened: the workspace's opener for {} is not trusted",
                    escape(&t.shown)
                ));
                Vec::new()
            }
            (PromptOverlay::Authorize(mut a), Command::ClearInput) => {
                a.typed.clear();
                self.overlay = Some(Overlay::Prompt(PromptOverlay::Authorize(a)));
                Vec::new()
            }
            (PromptOverlay::Judge(mut j), c) => {
                if j.editing_note {
                    // Enter or Esc ends the note; the verdict is still to give
                    if matches!(c, Command::Confirm | Command::Close) {
                        j.editing_note = false;
                    } else if c == Command::ClearInput {
                        j.note.clear();
                    }
                    self.overlay = Some(Overlay::Prompt(PromptOverlay::Judge(j)));
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
                self.overlay = Some(Overlay::Prompt(PromptOverlay::Judge(j)));
                Vec::new()
            }
            (_, Command::Close) => Vec::new(),
            (p, _) => {
                self.overlay = Some(Overlay::Prompt(p));
                Vec::new()
            }
        }
    }

    /// `F`: every case whose latest run failed (tests) or whose latest verdict failed
    /// (catalog), through the prompts of `r`. On the Runs tab with a filter, only the
    /// failed cases the filter shows.
    pub(super) fn rerun_failed(&mut self) -> Vec<Effect> {
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        let set = crate::exec::failed::failed_set(ws);
        let shown: Option<HashSet<String>> =
            (self.tab == Tab::Runs && !self.runs.filter.is_empty()).then(|| {
                self.runs
                    .visible
                    .iter()
                    .filter_map(|r| match r {
                        RunRow::Tests(i) => ws.logs.runs.get(*i).map(RawRun::key),
                        RunRow::Record(_) => None,
                    })
                    .collect()
            });
        let in_view = |key: &str| shown.as_ref().is_none_or(|s| s.contains(key));
        // temp cases are scratch: left out unless the person brings them in (t)
        let (temp, tests): (Vec<_>, Vec<_>) = set
            .tests
            .iter()
            .filter(|c| in_view(&c.key()))
            .partition(|c| c.temp);
        let as_target =
            |c: &&crate::workspace::tree::TestCase| (c.scope.clone(), Some(c.case_id.clone()));
        let tests: Vec<(String, Option<String>)> = tests.iter().map(as_target).collect();
        let temp: Vec<(String, Option<String>)> = temp.iter().map(as_target).collect();
        // a failed orphan has no test file to run: named, not silently dropped
        let left_out: Vec<(String, String)> = self
            .tests
            .cases
            .iter()
            .filter(|c| {
                c.orphan()
                    && c.latest == Some(crate::workspace::logs::RunStatus::Failed)
                    && in_view(&c.key)
            })
            .map(|c| (c.key.clone(), "orphan: its test file is gone".to_owned()))
            .collect();
        let catalog = if shown.is_some() {
            Vec::new()
        } else {
            set.catalog
        };
        if tests.is_empty() && catalog.is_empty() && temp.is_empty() {
            self.notice = Some(if left_out.is_empty() {
                "no failed case to rerun".into()
            } else {
                format!(
                    "no failed case to rerun; left out: {}",
                    Outlook {
                        excluded: left_out,
                        ..Outlook::default()
                    }
                    .line()
                    .trim_start_matches("0 cases · ")
                )
            });
            return Vec::new();
        }
        let n = tests.len() + catalog.len();
        let fx = self.preview_or_launch(
            Preview {
                tests,
                catalog,
                with_temp: false,
                temp,
                left_out,
                rerun: true,
                line: String::new(),
            },
            false,
        );
        if fx.iter().any(|e| matches!(e, Effect::Launch { .. })) {
            let prev = self.notice.take().unwrap_or_default();
            self.notice = Some(format!("rerun failed ({n}): {prev}"));
        }
        fx
    }

    /// A launch to ask about, as `r` builds it.
    fn asking(&self, tests: &[(String, Option<String>)], catalog: &[String]) -> Asking {
        let risk = self.risk().unwrap_or_default();
        let plan = match &self.ws {
            Some(ws) => plan_for(ws, tests, catalog, risk, &self.grants),
            None => crate::exec::LaunchPlan::default(),
        };
        Asking {
            plan,
            prompt: crate::exec::Prompt::Live {
                case: String::new(),
            },
            typed: String::new(),
            declined: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// The cases `w` acts on: the marked ones, or the selection (a folder or category:
    /// every case under it).
    fn watch_targets(&self) -> Vec<CaseRef> {
        if !self.marks.is_empty() {
            let known: HashSet<CaseRef> = self
                .tests
                .cases
                .iter()
                .filter(|c| !c.orphan())
                .map(CaseRow::case_ref)
                .collect();
            return self
                .marks
                .iter()
                .filter(|m| m.catalog_id().is_some() || known.contains(m))
                .cloned()
                .collect();
        }
        let Some(ws) = &self.ws else {
            return Vec::new();
        };
        match self.tab {
            Tab::Tests => {
                let Some(&ni) = self.tests.visible.get(self.tests.list.cursor) else {
                    return Vec::new();
                };
                self.tests
                    .cases_under(ni, false)
                    .into_iter()
                    .map(CaseRow::case_ref)
                    .collect()
            }
            Tab::Catalog => ws.catalog.as_ref().map_or_else(Vec::new, |cat| {
                self.catalog
                    .selected_ids(cat)
                    .into_iter()
                    .map(CaseRef::Catalog)
                    .collect()
            }),
            Tab::Runs => self
                .selected_run()
                .and_then(|r| self.tests.case(&r.key()))
                .filter(|c| !c.orphan())
                .map(CaseRow::case_ref)
                .into_iter()
                .collect(),
        }
    }

    /// `w`: watch what is selected (asking what `r` would ask first), or stop watching
    /// it when all of it is watched already.
    pub(super) fn watch_toggle(&mut self) -> Vec<Effect> {
        let keys = self.watch_targets();
        if keys.is_empty() {
            self.notice = Some("nothing to watch here (an orphan has no test file)".into());
            return Vec::new();
        }
        if let Some(msg) = self.watch.unwatch(&keys) {
            self.notice = Some(msg);
            return vec![self.watch.job(&self.grants, self.risk())];
        }
        let tests: Vec<(String, Option<String>)> = keys
            .iter()
            .filter_map(|k| match k {
                CaseRef::Tests { scope, case_id } => Some((scope.clone(), Some(case_id.clone()))),
                CaseRef::Catalog(_) => None,
            })
            .collect();
        let catalog: Vec<String> = keys
            .iter()
            .filter_map(|k| k.catalog_id().map(str::to_owned))
            .collect();
        let a = self.asking(&tests, &catalog);
        self.watch.asking = Some(keys);
        self.ask_or_launch(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_grant_or_decline() {
        let mut a = Asking {
            plan: LaunchPlan::default(),
            prompt: Prompt::Mutating {
                case: "X".into(),
                host: "127.0.0.1".into(),
            },
            typed: "y".into(),
            declined: Vec::new(),
            skipped: Vec::new(),
        };
        let mut g = Grants::default();
        answer(&mut a, &mut g, false);
        assert_eq!(a.declined, [Grantable::Risk(Risk::Mutating)]);
        assert!(g.get(&Grantable::Risk(Risk::Mutating)).is_none());
        answer(&mut a, &mut g, true);
        assert_eq!(
            g.get(&Grantable::Risk(Risk::Mutating)),
            Some(GrantSource::Prompt)
        );
        assert!(
            a.plan
                .grants
                .get(&Grantable::Risk(Risk::Mutating))
                .is_some()
        );
        assert!(!a.typed());
    }
}
