//! Launching from the cockpit: the plan for the marked (or selected) cases, the
//! authorization prompts asked one at a time (safe by default), and the launch.
//! Pure: the runtime does the launching. The preview before a launch, `F`, the
//! launch's events, the runner's own lines and a person's verdict each have a
//! file here.

use super::super::action::Command;
use super::effect::Effect;
use super::live::launch::Shown;
use super::overlay::{Overlay, Prompt as PromptOverlay};
use super::pane::{Ctx, Published, Shared};
use std::collections::{BTreeMap, BTreeSet};
use testdeck_core::workspace::Workspace;
use testdeck_exec::{
    self as exec, Decision, GrantSource, Grantable, Grants, LaunchContext, LaunchPlan, Prompt,
    Risk, TestsTarget,
};

mod events;
pub mod preview;
mod rerun;
pub mod runner_output;
pub mod verdict;

pub use super::prompt::{Asking, Judging, Preview, VERDICTS};
pub use events::skip_reasons;
pub use preview::Outlook;

/// The word a person types to authorize destructive cases (a key press never can).
pub const DESTRUCTIVE_WORD: &str = "destructive";

/// The launch component: the session's authorizations and max risk, the launches
/// started and still running, the person-judged cases waiting for a verdict, and
/// what the runner of the launch under way said. The launch files of this folder
/// change it; the rest of the cockpit reads it through its methods.
#[derive(Debug, Default)]
pub struct Launch {
    /// Number of runs in flight.
    running: usize,
    /// The session's max risk (from the catalog's default; `m` cycles it).
    max_risk: Option<Risk>,
    /// Authorizations given in this session (prompts), shown in the status bar.
    grants: Grants,
    /// Launches started (the next launch's number).
    launches: usize,
    /// Person-judged cases waiting for their verdict.
    judge_queue: std::collections::VecDeque<Judging>,
    /// Verdict prompts shown in a row so far ("verdict 2 of 3"); 0 when none waits.
    verdicts_asked: usize,
    /// What the runner of the launch under way said (for when it writes no run).
    runner: runner_output::RunnerOutput,
    /// The plan of this session's last launch (`.` launches it again).
    last: Option<Box<testdeck_exec::LaunchPlan>>,
    /// The tests targets of each launch under way, by launch number: a run
    /// folder of theirs that the watch shows before the launch says it made
    /// it is the launch's, never another process's.
    targets: std::collections::BTreeMap<usize, Vec<testdeck_exec::TestsTarget>>,
}

impl Launch {
    /// Runs in flight.
    pub fn running(&self) -> usize {
        self.running
    }

    /// Whether the run folder `path` (`tests/logs/<scope>/<caseId>/<runId>`)
    /// is one a launch under way asked its runner for.
    pub fn covers(&self, path: &str) -> bool {
        let mut parts = path.strip_prefix("tests/logs/").unwrap_or(path).rsplit('/');
        let (Some(_run), Some(case_id)) = (parts.next(), parts.next()) else {
            return false;
        };
        let scope: Vec<&str> = parts.rev().collect();
        let scope = scope.join("/");
        self.targets
            .values()
            .flatten()
            .any(|t| testdeck_exec::tests_run::asked_for(t, &scope, case_id))
    }

    /// The session's max risk (`None` until a catalog or `m` sets it).
    pub fn max_risk(&self) -> Option<Risk> {
        self.max_risk
    }

    /// The authorizations given in this session.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// Person-judged cases still waiting behind the verdict prompt on screen.
    pub fn verdicts_waiting(&self) -> usize {
        self.judge_queue.len()
    }

    /// The catalog's default max risk, taken when the session has none yet.
    pub(in crate::app) fn default_risk(&mut self, risk: Risk) {
        self.max_risk.get_or_insert(risk);
    }

    /// The launch's own keys: `m` cycles the max risk, `Cancel` ends the runs in
    /// flight.
    pub(in crate::app) fn handle(&mut self, c: Command, cx: &mut Ctx) {
        match c {
            Command::MaxRisk => cx.say(self.cycle_risk()),
            Command::Cancel if self.running == 0 => cx.say("nothing is running"),
            Command::Cancel => {
                cx.say("cancelling: SIGTERM, then SIGKILL after 3 s");
                cx.effect([Effect::Cancel]);
            }
            _ => {}
        }
    }

    /// `m`: the next max risk, and the notice saying whether it was raised.
    fn cycle_risk(&mut self) -> String {
        let before = self.max_risk;
        let now = before.map_or(Risk::Readonly, Risk::cycled);
        self.max_risk = Some(now);
        // raising the ceiling lets riskier cases run: it is said, not only shown
        let how = match before {
            Some(b) if now > b => "raised",
            Some(b) if now < b => "lowered",
            _ => "set",
        };
        format!("max risk {how} to {}", now.as_str())
    }
}

/// What a session of launches leaves behind, set directly by the integration tests
/// whose frames show it (the runtime is not there to start anything).
#[cfg(feature = "test-support")]
impl Launch {
    pub fn set_running(&mut self, n: usize) {
        self.running = n;
    }

    pub fn grant(&mut self, g: Grantable) {
        self.grants.grant(g, GrantSource::Prompt);
    }

    pub fn queue_verdict(&mut self, j: Judging) {
        self.judge_queue.push_back(j);
    }
}

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

/// The catalog's vars as cases see them (the process environment only when the
/// cockpit reads it: never in tests).
pub(in crate::app) fn vars(s: &Shared) -> Option<testdeck_core::workspace::vars::Vars> {
    let cat = s.ws?.catalog.as_ref()?;
    Some(super::domain::vars_of(s.opts.use_env, cat))
}

impl Launch {
    /// `r`: launch the marked cases, or else the selection (shown first when it
    /// is more than one case).
    pub(in crate::app) fn start_launch(&mut self, cx: &mut Ctx) {
        if cx.shared.ws.is_none() {
            cx.say("still indexing");
            return;
        }
        let s = cx.shared;
        let (tests, catalog) = super::targets::launch_targets(s.marks, &s);
        if tests.is_empty() && catalog.is_empty() {
            cx.say("nothing to run here (an orphan has no test file)");
            return;
        }
        self.preview_or_launch(
            Preview {
                tests,
                catalog,
                temp: Vec::new(),
                with_temp: false,
                left_out: Vec::new(),
                rerun: false,
                ..Preview::default()
            },
            false,
            cx,
        );
    }

    /// `.`: this session's last launch again — the same cases, through the
    /// prompts with the answers the session holds (none asked again).
    pub(in crate::app) fn run_last(&mut self, cx: &mut Ctx) {
        let Some(last) = &self.last else {
            cx.say(".: nothing launched yet in this session (r runs a case)");
            return;
        };
        let mut plan = (**last).clone();
        plan.grants = self.grants.clone();
        let mut a = self.asking(cx.shared.ws, &[], &[], None);
        a.plan = plan;
        self.ask(a, cx);
    }

    /// A launch to ask about in workspace `ws`, as `r` builds it (`risk`: this
    /// launch's max risk, when the preview raised it; the session's otherwise),
    /// with the session's authorizations.
    pub(in crate::app) fn asking(
        &self,
        ws: Option<&Workspace>,
        tests: &[(String, Option<String>)],
        catalog: &[String],
        risk: Option<Risk>,
    ) -> Asking {
        let risk = risk.or(self.max_risk).unwrap_or_default();
        let plan = match ws {
            Some(ws) => plan_for(ws, tests, catalog, risk, &self.grants),
            None => testdeck_exec::LaunchPlan::default(),
        };
        Asking {
            plan,
            prompt: testdeck_exec::Prompt::Live {
                case: String::new(),
            },
            typed: String::new(),
            declined: Vec::new(),
            skipped: Vec::new(),
            framed: (String::new(), String::new()),
        }
    }

    /// Ask the next question of a launch; when none is left it is authorized
    /// (the App hands it to the watch when the questions were a `w`'s, and
    /// back to [`Launch::launch`]).
    #[expect(
        clippy::unused_self,
        reason = "the launch's own question: asked through its component"
    )]
    pub(in crate::app) fn ask(&mut self, mut a: Asking, cx: &mut Ctx) {
        let Some(ws) = cx.shared.ws else {
            return;
        };
        let ctx = testdeck_exec::LaunchContext::of(ws);
        let (next, skipped) = next_prompt(&ctx, &a.plan, &a.declined);
        a.skipped = skipped;
        if let Some(p) = next {
            a.prompt = p;
            a.typed.clear();
            // a launch that starts after a question says only that it did
            a.framed = (String::new(), String::new());
            cx.open(Overlay::Prompt(PromptOverlay::Authorize(Box::new(a))));
            return;
        }
        cx.publish(Published::Authorized(Box::new(a)));
    }

    /// Launch `a`, whose questions are all answered — unless they were a
    /// watch's (`watching`: what the watch says and its job): then it starts
    /// watching what was authorized and nothing launches.
    pub(in crate::app) fn launch(
        &mut self,
        a: Asking,
        watching: Option<(String, Effect)>,
        cx: &mut Ctx,
    ) {
        let Some(ws) = cx.shared.ws else {
            return;
        };
        if let Some((msg, job)) = watching {
            cx.publish(Published::Marks(BTreeSet::new()));
            cx.say(msg);
            cx.effect([job]);
            return;
        }
        let ctx = testdeck_exec::LaunchContext::of(ws);
        self.last = Some(Box::new(a.plan.clone()));
        let index = self.launches;
        self.targets.insert(index, a.plan.tests.clone());
        self.launches += 1;
        self.running += 1;
        cx.publish(Published::Marks(BTreeSet::new()));
        // the run launched is watched unfiltered (as another case selected is),
        // and the previous run's rows leave the pane the moment it starts
        cx.publish(Published::Live(Box::new(Shown::Starting)));
        let launched = if a.skipped.is_empty() {
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
        };
        cx.say(format!("{}{launched}{}", a.framed.0, a.framed.1));
        cx.effect([
            Effect::StopFollow,
            Effect::Launch {
                index,
                plan: Box::new(a.plan),
                ctx: Box::new(ctx),
            },
        ]);
    }

    /// A key on a prompt, handed to that prompt's own handling (an opener's
    /// trust prompt is the opener's: the App routes it there first).
    pub(in crate::app) fn prompt_command(&mut self, p: PromptOverlay, c: Command, cx: &mut Ctx) {
        match p {
            PromptOverlay::Preview(p) => self.preview_command(p, c, cx),
            PromptOverlay::Authorize(a) => self.authorize_command(a, c, cx),
            PromptOverlay::Judge(j) => Self::judge_command(j, c, cx),
            PromptOverlay::TrustOpener(t) => {
                cx.open(Overlay::Prompt(PromptOverlay::TrustOpener(t)));
            }
            PromptOverlay::QuitLive => match c {
                Command::Confirm => cx.publish(Published::Quit),
                Command::Close => {}
                _ => cx.open(Overlay::Prompt(PromptOverlay::QuitLive)),
            },
        }
    }

    /// A key on an authorization prompt: `y` (or the word typed) grants it for the
    /// session, anything else declines it for this launch; then the next question.
    fn authorize_command(&mut self, mut a: Box<Asking>, c: Command, cx: &mut Ctx) {
        match c {
            Command::Confirm | Command::Close => {
                let yes =
                    c == Command::Confirm && (!a.typed() || a.typed.trim() == DESTRUCTIVE_WORD);
                if a.typed() && c == Command::Confirm && !yes {
                    cx.say(format!(
                        "not authorized: type {DESTRUCTIVE_WORD} to authorize"
                    ));
                }
                answer(&mut a, &mut self.grants, yes);
                self.ask(*a, cx);
            }
            Command::ClearInput => {
                a.typed.clear();
                cx.open(Overlay::Prompt(PromptOverlay::Authorize(a)));
            }
            _ => cx.open(Overlay::Prompt(PromptOverlay::Authorize(a))),
        }
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
            framed: (String::new(), String::new()),
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
