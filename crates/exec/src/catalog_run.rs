//! Running catalog cases (SPEC §1.4, §3.2–3.4): the selection in order, each
//! category's `status_probe`, the policy per case, `sh -c` in the case's own
//! process group, the expectations, `run_together`, and the run record.

use super::http::{self, ProbeResult};
use super::policy::{self, CaseFacts, Decision, GrantSource, Grantable, Grants, Risk};
use super::process::{self, Cancel, Program, Spec};
use super::record::{
    AuthorizationRecord, CaseResult, CategoryProbe, RecordWriter, RunRecord, Verdict,
};
use super::{ExecEvent, ResultLine, Sink};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use testdeck_core::workspace::assume::Assume;
use testdeck_core::workspace::catalog::{Automation, Case, Catalog, Driver, ExpectedKind};
use testdeck_core::workspace::host;
use testdeck_core::workspace::select::{self, Request, Selection};
use testdeck_core::workspace::vars::{self, VarSource, Vars};

/// The reason given to cases no process can judge (SPEC §3.3).
pub const NEEDS_A_PERSON: &str = "needs a person";

/// What to run from the catalog.
#[derive(Debug, Clone, Default)]
pub struct CatalogPlan {
    /// Exact case ids or category ids (the selection expands `run_together`).
    pub ids: Vec<String>,
    /// The highest risk to run; the catalog's `default_max_risk` when `None`.
    pub max_risk: Option<Risk>,
    /// The run record's label.
    pub label: String,
}

/// The policy's session for a catalog: HOST, max risk, switches resolved
/// (environment > local.yaml, never catalog vars), and the session's grants.
pub(crate) fn session(
    catalog: &Catalog,
    vars: &Vars,
    max_risk: Risk,
    grants: &Grants,
    headless: bool,
) -> policy::Session {
    let mut switches = BTreeMap::new();
    for var in catalog.switch_vars() {
        if let Some(e) = vars.entry(var) {
            // catalog vars never authorize (Vars::resolve leaves them out already;
            // this says so where the decision is made)
            let how = match e.source {
                VarSource::Environment => GrantSource::Environment,
                VarSource::Local => GrantSource::LocalYaml,
                VarSource::Catalog | VarSource::Default => continue,
            };
            switches.insert(var.to_owned(), (e.value.clone(), how));
        }
    }
    policy::Session {
        headless,
        max_risk,
        host: vars.host().to_owned(),
        authorize: catalog
            .authorize
            .iter()
            .filter_map(|s| Some((Risk::parse(&s.key)?, s.var.clone())))
            .collect(),
        gates: catalog
            .gates
            .iter()
            .map(|s| (s.key.clone(), s.var.clone()))
            .collect(),
        switches,
        grants: grants.clone(),
    }
}

/// The policy's facts of a case (its `assume` evaluated in the process
/// environment). `probe_url` is its category's effective probe, expanded: a
/// URL the case's run would reach, like its own `how.url`.
pub(crate) fn facts(
    case: &Case,
    vars: &Vars,
    probe_url: Option<&str>,
) -> Result<CaseFacts, String> {
    let assume = match &case.assume {
        None => None,
        Some(expr) => {
            let a = Assume::parse(expr).map_err(|e| format!("assume cannot be read: {e}"))?;
            Some((expr.clone(), a.eval(&vars::process_env)))
        }
    };
    let own = case.how.url.as_ref().map(|u| vars.expand(u).text);
    let remote_url = own
        .into_iter()
        .chain(probe_url.map(str::to_owned))
        .find(|u| !host::url_is_loopback(u));
    Ok(CaseFacts {
        id: case.id.clone(),
        risk: Some(case.risk.unwrap_or(Risk::Destructive)),
        gate: case.gate.clone(),
        assume,
        live: false,
        remote_url,
    })
}

/// The one decision for every selected case, in execution order: each member
/// decided on its own, then `run_together` applied (a group runs only when
/// every member may). Both shells and the launch itself use it.
pub(crate) fn decide_selection(
    catalog: &Catalog,
    vars: &Vars,
    sel: &Selection,
    session: &policy::Session,
) -> Vec<(String, Decision)> {
    let mut ds = Vec::new();
    let mut groups = Vec::new();
    for x in &sel.selected {
        let Some(c) = catalog.case(&x.id) else {
            continue;
        };
        let probe_url = sel
            .categories
            .iter()
            .find(|k| k.id == c.category)
            .and_then(|k| k.status_probe.as_ref())
            .map(|p| p.url.as_str());
        let d = match facts(c, vars, probe_url) {
            Ok(f) => policy::decide(session, &f),
            Err(e) => Decision::Skip(e),
        };
        ds.push((c.id.clone(), d));
        groups.push(x.group);
    }
    policy::decide_groups(&mut ds, &groups);
    ds
}

/// The decision for every selected case, in execution order: what the TUI must
/// ask before launching (`NeedsPrompt`), what will be skipped and why.
pub(crate) fn decisions(
    catalog: &Catalog,
    plan: &CatalogPlan,
    grants: &Grants,
    headless: bool,
) -> Vec<(String, Decision)> {
    let vars = Vars::resolve(catalog, &vars::process_env);
    let sel = selection(catalog, &vars, plan);
    let s = session(catalog, &vars, sel.max_risk, grants, headless);
    decide_selection(catalog, &vars, &sel, &s)
}

/// The catalog selection of `plan`, probe URLs expanded with `vars`.
pub fn selection(catalog: &Catalog, vars: &Vars, plan: &CatalogPlan) -> Selection {
    select::select(
        catalog,
        vars,
        &Request {
            ids: plan.ids.clone(),
            max_risk: plan.max_risk,
            tag: None,
        },
    )
}

/// Why no process can judge a case, when none can (it is then `not-run`):
/// a person must (SPEC §3.3), or the case lacks what a verdict needs.
pub(crate) fn not_runnable(case: &Case) -> Option<String> {
    let person = matches!(case.driver, Some(Driver::Browser | Driver::Mobile))
        || matches!(case.automation(), Automation::Assisted | Automation::Manual)
        || case.expected.iter().any(|e| {
            matches!(
                e.kind,
                Some(ExpectedKind::VisibleText | ExpectedKind::Url | ExpectedKind::Interaction)
            )
        });
    if person {
        return Some(NEEDS_A_PERSON.into());
    }
    if case.how.run.is_none() && case.how.url.is_none() {
        return Some("needs a person or an agent: the case has only how.steps".into());
    }
    if case.expected.iter().any(|e| e.kind.is_none()) {
        return Some("an expected kind is not valid: nothing to judge by".into());
    }
    if case.expected.is_empty() {
        return Some("no expected: nothing to judge by".into());
    }
    None
}

/// Shared with the launch handle so the TUI can record a person's verdict.
pub(crate) type RecordSlot = Arc<Mutex<Option<RecordWriter>>>;

/// Run the catalog part of a launch. Returns the results and the record's
/// runId and path (relative to `root`).
#[allow(clippy::too_many_arguments)]
#[expect(
    clippy::too_many_lines,
    reason = "one case's whole life in order: plan, spawn, stream, settle, record; its locals live across every stage"
)]
pub(crate) fn launch_catalog(
    root: &Path,
    catalog: &Catalog,
    plan: &CatalogPlan,
    grants: &Grants,
    headless: bool,
    cancel: &Cancel,
    sink: &Sink,
    slot: &RecordSlot,
) -> (Vec<ResultLine>, Option<(String, String)>) {
    let vars = Vars::resolve(catalog, &vars::process_env);
    let sel = selection(catalog, &vars, plan);
    let max_risk: Risk = sel.max_risk;
    let session = session(catalog, &vars, max_risk, grants, headless);
    let mut record = RunRecord::new(
        String::new(),
        plan.label.clone(),
        vars.host().to_owned(),
        max_risk,
    );
    (record.git_commit, record.git_branch) = super::record::git_info(root);
    if let Ok(Value::Object(m)) = serde_json::to_value(&catalog.agent) {
        record.agent = m.into_iter().filter(|(_, v)| !v.is_null()).collect();
    }
    let writer = match RecordWriter::create(root, record) {
        Ok(w) => w,
        Err(e) => {
            let r = ResultLine::unrun(
                "record",
                Verdict::EnvironmentFail,
                format!("cannot write the run record: {e}"),
            );
            sink(ExecEvent::CaseEnd(r.clone()));
            return (vec![r], None);
        }
    };
    let run_id = writer.record.run_id.clone();
    let rel = testdeck_core::workspace::rel(root, &writer.path);
    sink(ExecEvent::RunStart {
        run_id: run_id.clone(),
        record: rel.clone(),
    });
    if let Ok(mut s) = slot.lock() {
        *s = Some(writer);
    }
    // a failed save (disk full, EFBIG, a vanished folder) leaves the previous
    // version in place (write beside, then rename); it is reported once when
    // saving starts to fail, as an environment failure of the run
    let save_failed: std::cell::RefCell<Option<ResultLine>> = std::cell::RefCell::new(None);
    let save = |f: &mut dyn FnMut(&mut RecordWriter)| {
        if let Ok(mut s) = slot.lock() {
            if let Some(w) = s.as_mut() {
                f(w);
                if let Err(e) = w.save() {
                    if save_failed.borrow().is_none() {
                        let r = ResultLine {
                            run_id: Some(run_id.clone()),
                            tests: None,
                            ..ResultLine::unrun(
                                "record",
                                Verdict::EnvironmentFail,
                                format!("cannot write the run record {rel}: {e}"),
                            )
                        };
                        sink(ExecEvent::CaseEnd(r.clone()));
                        *save_failed.borrow_mut() = Some(r);
                    }
                }
            }
        }
    };
    let mut results = Vec::new();
    // cases the selection left out (lifecycle, max risk, a group above it) are
    // recorded as skipped with the selection's reason
    for ex in &sel.excluded {
        let Some(case) = catalog.case(&ex.id) else {
            continue;
        };
        let risk = case.risk.unwrap_or(Risk::Destructive);
        sink(ExecEvent::CaseStart {
            id: case.id.clone(),
            source: "catalog".into(),
            title: Some(case.title.clone()),
            category: Some(case.category.clone()),
            risk: Some(risk),
            command: None,
            run_id: None,
            path: Some(case.file.clone()),
        });
        let res = CaseResult {
            reason: Some(ex.reason.clone()),
            ..CaseResult::new(case, risk, Verdict::Skipped, super::record::now())
        };
        let line = ResultLine::from(&res);
        save(&mut |w| w.record.results.push(res.clone()));
        sink(ExecEvent::CaseEnd(line.clone()));
        results.push(line);
    }
    let mut probes: HashMap<String, ProbeResult> = HashMap::new();
    let mut probed: Vec<String> = Vec::new();
    // a group whose member failed, by index
    let mut group_failed: HashMap<usize, String> = HashMap::new();
    let decided: HashMap<String, Decision> = decide_selection(catalog, &vars, &sel, &session)
        .into_iter()
        .collect();
    for sel_case in &sel.selected {
        let Some(case) = catalog.case(&sel_case.id) else {
            continue;
        };
        let started_at = super::record::now();
        let start = Instant::now();
        let decision = decided
            .get(&case.id)
            .cloned()
            .unwrap_or_else(|| Decision::Skip("not decided".into()));
        // the category's probe, once, before its first case the policy lets
        // run: nothing is sent for a category whose cases are all refused
        let allowed = matches!(decision, Decision::Allowed(_));
        if allowed && !probed.contains(&case.category) && !cancel.is_cancelled() {
            probed.push(case.category.clone());
            let resolved = sel
                .categories
                .iter()
                .find(|k| k.id == case.category)
                .and_then(|k| k.status_probe.clone());
            let result = resolved.map(|p| {
                let stop_if: Vec<(String, Vec<Value>)> = p
                    .stop_if
                    .iter()
                    .map(|s| (s.field.clone(), s.values.clone()))
                    .collect();
                http::probe(&p.url, &stop_if)
            });
            sink(ExecEvent::Probe {
                category: case.category.clone(),
                probe: result.clone(),
            });
            let category = case.category.clone();
            let r2 = result.clone();
            save(&mut |w| {
                w.record.probes.push(CategoryProbe {
                    category: category.clone(),
                    probe: r2.clone(),
                });
            });
            if let Some(r) = result {
                probes.insert(case.category.clone(), r);
            }
        }
        let mut res = CaseResult::new(
            case,
            case.risk.unwrap_or(Risk::Destructive),
            Verdict::NotRun,
            started_at,
        );
        let group = sel_case.group;
        let continue_on_fail = group
            .and_then(|g| catalog.run_together.get(g))
            .is_some_and(|g| g.continue_on_fail);
        let verdict_reason: Option<(Verdict, String)> = if cancel.is_cancelled() {
            Some((Verdict::NotRun, "cancelled".into()))
        } else if let Some(failed) = group
            .and_then(|g| group_failed.get(&g))
            .filter(|_| !continue_on_fail)
        {
            Some((
                Verdict::NotRun,
                format!("run_together: {failed} failed before it"),
            ))
        } else if let Some(p) = probes.get(&case.category).filter(|p| !p.ok && allowed) {
            Some((
                Verdict::EnvironmentFail,
                p.reason
                    .clone()
                    .unwrap_or_else(|| "status_probe stopped the category".into()),
            ))
        } else {
            match &decision {
                Decision::Skip(r) => Some((Verdict::Skipped, r.clone())),
                Decision::NeedsPrompt(p) => Some((
                    Verdict::Skipped,
                    if headless {
                        p.headless_reason()
                    } else {
                        format!("{} (not granted)", p.headless_reason())
                    },
                )),
                Decision::Allowed(_) if not_runnable(case).is_some() => {
                    not_runnable(case).map(|r| (Verdict::NotRun, r))
                }
                Decision::Allowed(_) => None,
            }
        };
        let command = case.how.run.as_ref().map(|r| vars.expand(r).text);
        sink(ExecEvent::CaseStart {
            id: case.id.clone(),
            source: "catalog".into(),
            title: Some(case.title.clone()),
            category: Some(case.category.clone()),
            risk: Some(res.risk),
            command: if verdict_reason.is_none() {
                command.clone()
            } else {
                None
            },
            run_id: None,
            path: Some(case.file.clone()),
        });
        if let Some((v, r)) = verdict_reason {
            res.verdict = v;
            res.reason = Some(r);
        } else if let Decision::Allowed(used) = &decision {
            // record what authorized it, once per kind
            let auths: Vec<AuthorizationRecord> = used
                .iter()
                .map(|u| AuthorizationRecord {
                    what: u.what.label(),
                    variable: u.variable.clone(),
                    how: u.how.as_str().to_owned(),
                    when: grants
                        .when(&u.what)
                        .map_or_else(super::record::now, str::to_owned),
                })
                .collect();
            save(&mut |w| {
                for a in &auths {
                    if !w.record.authorizations.iter().any(|x| x.what == a.what) {
                        w.record.authorizations.push(a.clone());
                    }
                }
            });
            let mut env = vars.child_env();
            for u in used {
                if let Some(v) = &u.variable {
                    env.push((v.clone(), "true".into()));
                }
            }
            let log = slot
                .lock()
                .ok()
                .and_then(|s| s.as_ref().map(|w| w.case_log(&case.id)));
            res.log = log.as_ref().map(|l| testdeck_core::workspace::rel(root, l));
            res.command.clone_from(&command);
            let mut log_note = None;
            let (v, r, code, tail) =
                run_case(root, case, &vars, env, log, cancel, sink, &mut log_note);
            res.verdict = v;
            res.reason = match (r, log_note) {
                (Some(r), Some(n)) => Some(format!("{r}; {n}")),
                (r, n) => r.or(n),
            };
            res.exit_code = code;
            res.output = tail;
        }
        res.duration_ms = start.elapsed().as_millis() as u64;
        if res.verdict == Verdict::Fail {
            if let Some(g) = group {
                group_failed.entry(g).or_insert_with(|| case.id.clone());
            }
        }
        let line = ResultLine::from(&res);
        save(&mut |w| w.record.results.push(res.clone()));
        sink(ExecEvent::CaseEnd(line.clone()));
        results.push(line);
    }
    // a launch in which nothing ran (every case skipped) leaves no record: its
    // reasons are in the results, a record would count a run that never was
    if !results.is_empty()
        && results.iter().all(|r| r.verdict == Verdict::Skipped)
        && save_failed.borrow().is_none()
    {
        if let Ok(mut s) = slot.lock() {
            if let Some(w) = s.take() {
                w.discard();
            }
        }
        return (results, None);
    }
    save(&mut |w| w.record.finished_at = Some(super::record::now()));
    results.extend(save_failed.into_inner());
    (results, Some((run_id, rel)))
}

/// Run one allowed, automated case: its command, then its HTTP expectations.
/// A case log cut short is left in `log_note` (the caller adds it to the reason).
#[allow(clippy::too_many_arguments)]
#[expect(
    clippy::too_many_lines,
    reason = "one case's run in order: spawn, stream, settle; its locals live across every stage"
)]
fn run_case(
    root: &Path,
    case: &Case,
    vars: &Vars,
    env: Vec<(String, String)>,
    log: Option<std::path::PathBuf>,
    cancel: &Cancel,
    sink: &Sink,
    log_note: &mut Option<String>,
) -> (Verdict, Option<String>, Option<i32>, Vec<String>) {
    if case.how.timeout > testdeck_core::workspace::catalog::MAX_TIMEOUT_SECS {
        // validate reports it (timeout-out-of-range); it never runs unbounded
        return (
            Verdict::EnvironmentFail,
            Some(format!(
                "how.timeout {} s is out of range (at most {} s = 24 h)",
                case.how.timeout,
                testdeck_core::workspace::catalog::MAX_TIMEOUT_SECS
            )),
            None,
            Vec::new(),
        );
    }
    let timeout = Duration::from_secs(case.how.timeout.max(1));
    let mut exit_code = None;
    let mut tail = Vec::new();
    if let Some(script) = &case.how.run {
        // the script runs as written: vars reach it as environment variables,
        // so sh expands ${NAME} itself and no value is pasted into the command
        let spec = Spec {
            program: Program::Shell(script.clone()),
            cwd: root.to_path_buf(),
            env,
            timeout: Some(timeout),
            log,
        };
        let id = case.id.clone();
        let o = process::run(&spec, cancel, &mut |stream, line| {
            sink(ExecEvent::Output {
                id: id.clone(),
                stream,
                line: line.to_owned(),
            });
        });
        tail = o.tail;
        exit_code = o.exit_code;
        // a case log cut short (disk full) is said in the verdict reason
        *log_note = o
            .log_error
            .map(|e| format!("the case log is cut short: {e}"));
        if let Some(e) = o.spawn_error {
            return (
                Verdict::EnvironmentFail,
                Some(format!("cannot start sh: {e}")),
                None,
                tail,
            );
        }
        if o.cancelled {
            return (Verdict::NotRun, Some("cancelled".into()), exit_code, tail);
        }
        if o.timed_out {
            return (Verdict::Fail, Some("timeout".into()), exit_code, tail);
        }
    }
    let mut answer: Option<Result<http::Answer, http::FetchError>> = None;
    for exp in &case.expected {
        let Some(kind) = exp.kind else { continue };
        let failure = match kind {
            ExpectedKind::ScriptExit => {
                let want = number(&exp.value);
                match (exit_code, want) {
                    (_, None) => Some(format!("script-exit value {} is not a number", exp.value)),
                    (None, _) if case.how.run.is_none() => {
                        Some("script-exit without how.run".to_owned())
                    }
                    (None, _) => Some("the script was ended by a signal".to_owned()),
                    (Some(c), Some(w)) if i64::from(c) != w => {
                        Some(format!("exit status {c}, expected {w}"))
                    }
                    _ => None,
                }
            }
            ExpectedKind::ApiStatus | ExpectedKind::ApiField => {
                let Some(url) = &case.how.url else {
                    return (
                        Verdict::Fail,
                        Some(format!("{kind} without how.url")),
                        exit_code,
                        tail,
                    );
                };
                let a = answer.get_or_insert_with(|| {
                    http::fetch(case.how.method(), &vars.expand(url).text, timeout)
                });
                let a = match a {
                    Ok(a) => a,
                    Err(e) => {
                        return (
                            Verdict::EnvironmentFail,
                            Some(e.to_string()),
                            exit_code,
                            tail,
                        );
                    }
                };
                if kind == ExpectedKind::ApiStatus {
                    match number(&exp.value) {
                        None => Some(format!("api-status value {} is not a number", exp.value)),
                        Some(w) if i64::from(a.status) != w => {
                            Some(format!("HTTP status {}, expected {w}", a.status))
                        }
                        Some(_) => None,
                    }
                } else {
                    let value = vars.expand_json(&exp.value);
                    let path = value.get("path").and_then(Value::as_str);
                    let equals = value.get("equals");
                    match (path, equals, a.json()) {
                        (Some(p), Some(want), Some(j)) => match http::lookup(&j, p) {
                            Some(found) if http::same(found, want) => None,
                            Some(found) => Some(format!("{p} = {found}, expected {want}")),
                            None => Some(format!("{p} is missing from the answer")),
                        },
                        (Some(_), Some(_), None) => Some("the answer is not JSON".to_owned()),
                        _ => Some("api-field value needs {path, equals}".to_owned()),
                    }
                }
            }
            // not_runnable() keeps these away
            ExpectedKind::VisibleText | ExpectedKind::Url | ExpectedKind::Interaction => {
                Some(NEEDS_A_PERSON.to_owned())
            }
        };
        if let Some(f) = failure {
            return (Verdict::Fail, Some(f), exit_code, tail);
        }
    }
    (Verdict::Pass, None, exit_code, tail)
}

/// A whole number from JSON (`200` or `"200"`).
fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The policy decisions of the catalog part as the TUI sees them: which
/// grantables a prompt would give.
pub fn prompt_grantables(ds: &[(String, Decision)]) -> Vec<Grantable> {
    let mut out: Vec<Grantable> = Vec::new();
    for (_, d) in ds {
        if let Decision::NeedsPrompt(p) = d {
            let g = p.grants();
            if !out.contains(&g) {
                out.push(g);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(case_yaml: &str) -> Case {
        let mut problems = Vec::new();
        let cat = testdeck_core::workspace::catalog::from_texts(
            "categories:\n  - id: A\n    title: a\nrisks: [readonly]\ndefault_max_risk: readonly\n",
            None,
            &[(
                ".pouch/tester/cases/a.yaml",
                Some(&format!(
                    "category: A\ncases:\n  - id: TC-A-001\n    category: A\n    title: t\n    what: w\n    lifecycle: active\n    tag: full\n    risk: readonly\n{case_yaml}"
                )),
            )],
            &mut problems,
        );
        cat.cases.first().cloned().expect("one case")
    }

    #[test]
    fn what_no_process_can_judge() {
        let script = "    driver: script\n    how:\n      run: 'true'\n    expected:\n      - kind: script-exit\n        value: 0\n";
        assert_eq!(not_runnable(&one(script)), None);
        let api = "    driver: script\n    how:\n      url: http://x\n    expected:\n      - kind: api-status\n        value: 200\n";
        assert_eq!(not_runnable(&one(api)), None);
        for person in [
            "    driver: browser\n    session: s\n    how:\n      url: http://x\n      steps: [look]\n    expected:\n      - kind: url\n        value: /a\n",
            "    automation: manual\n    how:\n      steps: [look]\n    expected:\n      - kind: interaction\n        value: it works\n",
            "    driver: script\n    automation: assisted\n    how:\n      run: 'true'\n      steps: ['[人工] look']\n    expected:\n      - kind: script-exit\n        value: 0\n",
            "    driver: script\n    how:\n      run: 'true'\n    expected:\n      - kind: visible-text\n        value: hi\n",
        ] {
            assert_eq!(
                not_runnable(&one(person)).as_deref(),
                Some(NEEDS_A_PERSON),
                "{person}"
            );
        }
        let steps = "    driver: script\n    how:\n      steps: [do it]\n    expected:\n      - kind: script-exit\n        value: 0\n";
        assert!(not_runnable(&one(steps)).is_some_and(|r| r.contains("how.steps")));
        let none = "    driver: script\n    how:\n      run: 'true'\n    expected: []\n";
        assert!(not_runnable(&one(none)).is_some_and(|r| r.contains("nothing to judge")));
    }

    #[test]
    fn numbers_from_json() {
        assert_eq!(number(&serde_json::json!(200)), Some(200));
        assert_eq!(number(&serde_json::json!(" 201 ")), Some(201));
        assert_eq!(number(&serde_json::json!("x")), None);
        assert_eq!(number(&serde_json::json!(null)), None);
    }
}
