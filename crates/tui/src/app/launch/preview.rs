//! The launch preview: what a launch of more than one case will do, counted from
//! the same decisions the launch takes, shown before it starts (Enter goes on to
//! its prompts, `t` brings temp cases in, Esc cancels).

use super::super::super::action::Command;
use super::super::overlay::{Overlay, Prompt as PromptOverlay};
use super::super::pane::{Ctx, Shared};
use super::super::prompt::Preview;
use super::Launch;
use std::collections::HashMap;
use std::fmt::Write as _;
use testdeck_core::sanitize::escape;
use testdeck_exec::{self as exec, Decision, LaunchPlan, TestsTarget};

/// What a plan will do, counted before it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outlook {
    /// Cases that will run or be asked about.
    pub cases: usize,
    /// Of those, the ones a prompt must authorize first.
    pub need_auth: usize,
    /// Cases left out, each with why.
    pub excluded: Vec<(String, String)>,
    /// Every case by name, each with what the launch does with it: `▸ runs`,
    /// `? asks` (a prompt first), `✗ out` and why.
    pub rows: Vec<String>,
}

/// Whether `why` leaves a case out for the max risk alone (its own risk, or a
/// `run_together` member's).
pub fn above_max_risk(why: &str) -> bool {
    why.contains("above max-risk") || why.contains("above the max risk")
}

/// Why a live case under a folder launched is left out.
pub const LIVE_LEFT_OUT: &str = "live: left out of a folder's run (r on its live/ folder runs it)";

impl Outlook {
    /// `12 cases · 2 need authorization · 3 excluded: A (why); B (why); +1 more`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{} {}",
            self.cases,
            if self.cases == 1 { "case" } else { "cases" }
        );
        s.push_str(" will run");
        if self.need_auth > 0 {
            let _ = write!(s, " · {} need an answer first", self.need_auth);
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

    /// `3 excluded: A (why); B (why); C (why)`: only what was left out.
    pub fn left_out(excluded: Vec<(String, String)>) -> String {
        let o = Outlook {
            excluded,
            ..Outlook::default()
        };
        o.line()
            .trim_start_matches("0 cases will run · ")
            .to_owned()
    }
}

/// What `plan` will do: the cases it runs (a folder counts its cases), those a
/// prompt must authorize, and what the selection and the policy leave out —
/// from the same decisions the launch takes (`exec::decisions`).
pub fn outlook(s: &Shared, plan: &LaunchPlan, left_out: &[(String, String)]) -> Outlook {
    let Some(ws) = s.ws else {
        return Outlook::default();
    };
    let ctx = testdeck_exec::LaunchContext::of(ws);
    // a folder's cases by name; its live ones are left out (the runner runs
    // them only when the live/ folder itself is launched)
    let names = |t: &TestsTarget| -> (Vec<String>, Vec<String>) {
        match t {
            TestsTarget::Cases { scope, case_ids } => (
                case_ids
                    .iter()
                    .map(|c| testdeck_core::workspace::tree::key(scope, c))
                    .collect(),
                Vec::new(),
            ),
            TestsTarget::Scope(scope) => {
                let live_target = testdeck_exec::tests_run::is_live_scope(scope);
                let (live, run): (Vec<&super::super::CaseRow>, _) = s
                    .tests
                    .cases()
                    .iter()
                    .filter(|c| {
                        !c.orphan()
                            && (c.scope == *scope
                                || c.scope
                                    .strip_prefix(scope.as_str())
                                    .is_some_and(|r| r.starts_with('/')))
                    })
                    .partition(|c| {
                        !live_target && testdeck_exec::tests_run::is_live_scope(&c.scope)
                    });
                (
                    run.iter().map(|c| c.key.clone()).collect(),
                    live.iter().map(|c| c.key.clone()).collect(),
                )
            }
        }
    };
    let targets = testdeck_exec::tests_run::merge_targets(plan.tests.clone());
    let by_label: HashMap<String, (Vec<String>, Vec<String>)> =
        targets.iter().map(|t| (t.label(), names(t))).collect();
    let mut o = Outlook {
        excluded: left_out.to_vec(),
        ..Outlook::default()
    };
    if let (Some(cat), Some(vars)) = (&ctx.catalog, super::vars(s)) {
        if !plan.catalog.ids.is_empty() {
            let sel = testdeck_exec::catalog_run::selection(cat, &vars, &plan.catalog);
            o.excluded
                .extend(sel.excluded.into_iter().map(|e| (e.id, e.reason)));
        }
    }
    for (id, d) in exec::decisions(&ctx, plan) {
        let (cases, live) = by_label
            .get(&id)
            .cloned()
            .unwrap_or_else(|| (vec![id.clone()], Vec::new()));
        o.excluded
            .extend(live.into_iter().map(|c| (c, LIVE_LEFT_OUT.to_owned())));
        for c in cases {
            match &d {
                Decision::Allowed(_) => {
                    o.cases += 1;
                    o.rows.push(format!("▸ runs  {c}"));
                }
                Decision::NeedsPrompt(_) => {
                    o.cases += 1;
                    o.need_auth += 1;
                    o.rows.push(format!("? asks  {c}"));
                }
                Decision::Skip(why) => o.excluded.push((c, why.clone())),
            }
        }
    }
    o.rows.extend(
        o.excluded
            .iter()
            .map(|(id, why)| format!("✗ out   {id} — {why}")),
    );
    for r in &mut o.rows {
        *r = escape(r).into_owned();
    }
    o
}

impl Launch {
    /// Launch `p` at once when it is one case; else (or when the preview is open
    /// already: `stay`) show what it will do first.
    pub(super) fn preview_or_launch(&mut self, mut p: Preview, stay: bool, cx: &mut Ctx) {
        let mut tests = p.tests.clone();
        if p.with_temp {
            tests.extend(p.temp.iter().cloned());
        }
        let mut asking = self.asking(cx.shared.ws, &tests, &p.catalog, p.risk);
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
        let o = outlook(&cx.shared, &asking.plan, &left);
        // the max risk alone leaves cases out: the preview offers to raise it
        // for this launch (never at once: a person sees what it lets run)
        let risk = asking.plan.catalog.max_risk.unwrap_or_default();
        p.raise = (o.excluded.iter().any(|(_, why)| above_max_risk(why))
            && risk < testdeck_exec::Risk::Destructive)
            .then(|| risk.cycled());
        if o.cases == 1 && p.raise.is_none() && !stay {
            // say what was left out, even when one case runs at once
            if !left.is_empty() {
                asking.framed.1 = format!(" · {}", Outlook::left_out(left));
            }
            if p.rerun {
                asking.framed.0 = format!("rerun failed ({}): ", p.tests.len() + p.catalog.len());
            }
            self.ask(asking, cx);
            return;
        }
        p.line = o.line();
        p.rows = o.rows;
        p.scroll = p.scroll.min(p.rows.len().saturating_sub(1));
        cx.open(Overlay::Prompt(PromptOverlay::Preview(Box::new(p))));
    }

    /// A key on the preview: Enter launches (through the prompts), `t` brings the
    /// temp cases in or leaves them out again, `m` raises the max risk for this
    /// launch, j / k scroll the cases, Esc cancels.
    pub(super) fn preview_command(&mut self, mut p: Box<Preview>, c: Command, cx: &mut Ctx) {
        match c {
            Command::Confirm => {
                let rerun = p.rerun;
                let mut tests = p.tests.clone();
                if p.with_temp {
                    tests.extend(p.temp.iter().cloned());
                }
                let n = tests.len() + p.catalog.len();
                let mut a = self.asking(cx.shared.ws, &tests, &p.catalog, p.risk);
                if outlook(&cx.shared, &a.plan, &[]).cases == 0 {
                    // nothing would run: no launch, and no run record of nothing
                    cx.say("not launched: no case would run");
                    return;
                }
                if rerun {
                    a.framed.0 = format!("rerun failed ({n}): ");
                }
                self.ask(a, cx);
            }
            Command::IncludeTemp if !p.temp.is_empty() => {
                p.with_temp = !p.with_temp;
                self.preview_or_launch(*p, true, cx);
            }
            Command::MaxRisk if p.raise.is_some() => {
                p.risk = p.raise;
                cx.say(format!(
                    "max risk raised to {} for this launch",
                    p.risk.unwrap_or_default().as_str()
                ));
                self.preview_or_launch(*p, true, cx);
            }
            Command::MoveDown | Command::MoveUp => {
                let d: isize = if c == Command::MoveDown { 1 } else { -1 };
                let last = p.rows.len().saturating_sub(1);
                p.scroll = p.scroll.saturating_add_signed(d).min(last);
                cx.open(Overlay::Prompt(PromptOverlay::Preview(p)));
            }
            Command::Close => cx.say("not launched"),
            _ => cx.open(Overlay::Prompt(PromptOverlay::Preview(p))),
        }
    }
}
