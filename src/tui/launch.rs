//! Launching from the cockpit: the plan for the marked (or selected) cases, the
//! authorization prompts asked one at a time (safe by default), and the verdict a
//! person gives for a case no process can judge. Pure: the runtime does the launching.

use crate::exec::record::Verdict;
use crate::exec::{
    self, Decision, GrantSource, Grantable, Grants, LaunchContext, LaunchPlan, Prompt, Risk,
    TestsTarget,
};
use crate::workspace::Workspace;
use std::collections::BTreeMap;

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
                "Every case of this launch, readonly and tests-tree ones too, and".into(),
                "every probe and API check, will reach this remote service.".into(),
                "Nothing is sent until you answer. Go on against it?".into(),
            ],
        ),
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
