//! One decision for both shells (issue 12): the TUI `App` asks exactly what the
//! core's policy says is needed — a remote HOST before any case, every prompt of
//! a `run_together` group, never trusting catalog vars — and, driven with
//! scripted answers, starts exactly the cases headless `run` starts with the
//! matching flags. Real launches through `exec::launch`: real `sh` cases and a
//! real runner process for the tests tree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use testdeck_core::workspace::Workspace;
use testdeck_exec::{
    self as exec, ExecEvent, GrantSource, Grantable, LaunchContext, LaunchPlan, Prompt, Risk,
    TestsTarget,
};
use testdeck_tui::action::{Action, Command};
use testdeck_tui::app::{self, App, Effect, Overlay};

use crate::common;
use common::app::{Deck, Runs, options};
use common::fs::write;

const PLAIN: &str = "ai/backend/tools/terminal/basic/plain-case";
const LIVE: &str = "ai/backend/tools/terminal/live/live-case";
/// The catalog cases: risk × gate, and a run_together pair (mutating + destructive).
const CATALOG_IDS: [&str; 7] = [
    "TC-OPS-001",
    "TC-OPS-002",
    "TC-OPS-003",
    "TC-OPS-004",
    "TC-OPS-005",
    "TC-OPS-006",
    "TC-OPS-007",
];

fn case(id: &str, risk: &str, extra: &str) -> String {
    let tag = if risk == "readonly" { "smoke" } else { "full" };
    format!(
        "  - id: {id}\n    category: OPS\n    title: title of {id}\n    what: something observable\n    lifecycle: active\n    tag: {tag}\n    risk: {risk}\n{extra}    driver: script\n    how:\n      run: 'true'\n    expected:\n      - kind: script-exit\n        value: 0\n"
    )
}

/// HOST for the remote rows: not loopback for the classifier (an IPv4-mapped
/// IPv6 address), yet nothing could leave the machine if anything were sent.
const REMOTE_HOST: &str = "[::ffff:127.0.0.2]:9";

/// A workspace: the catalog cases above, two tests-tree cases (one `live`), a
/// runner that exits at once; `vars` go into catalog vars, `local` is local.yaml.
fn workspace(vars: &str, local: &str) -> tempfile::TempDir {
    // the table's launches write thousands of small records and logs
    let dir = crate::common::fs::scratch_dir();
    let root = dir.path();
    write(
        root,
        ".pouch/tester/catalog.yaml",
        &format!(
            "categories:\n  - id: OPS\n    title: ops\nrisks: [readonly, mutating, destructive]\ndefault_max_risk: readonly\nvars:\n  API: http://${{HOST}}\n{vars}authorize:\n  mutating: TD_ALLOW_MUTATING\n  destructive: TD_ALLOW_DESTRUCTIVE\ngates:\n  wipe: TD_ALLOW_WIPE\nrun_together:\n  - ids: [TC-OPS-006, TC-OPS-007]\nstatus_probe: false\n"
        ),
    );
    if !local.is_empty() {
        write(root, ".pouch/tester/local.yaml", local);
    }
    let cases = [
        case("TC-OPS-001", "readonly", ""),
        case("TC-OPS-002", "mutating", ""),
        case("TC-OPS-003", "destructive", ""),
        case("TC-OPS-004", "mutating", "    gate: wipe\n"),
        case("TC-OPS-005", "destructive", "    gate: wipe\n"),
        case("TC-OPS-006", "mutating", ""),
        case("TC-OPS-007", "destructive", ""),
    ];
    write(
        root,
        ".pouch/tester/cases/ops.yaml",
        &format!("category: OPS\ncases:\n{}", cases.concat()),
    );
    for key in [PLAIN, LIVE] {
        write(root, &format!("tests/{key}.test.ts"), "// a test\n");
    }
    write(
        root,
        "testdeck.toml",
        "[runner]\ncommand = [\"sh\", \"-c\", \"exit 0\", \"runner\"]\n",
    );
    dir
}

/// The App at 140×40 on `root`, loaded; no effect is run (the tests drive each one).
fn app_for(root: &Path) -> App {
    Deck::new(options(root, "trust"), Runs::NOTHING)
        .sized(140, 40)
        .loaded()
        .app
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The prompt on screen, if any.
fn prompt(app: &App) -> Option<Prompt> {
    match app.layers().overlay() {
        Some(Overlay::Prompt(app::Prompt::Authorize(a))) => Some(a.prompt.clone()),
        _ => None,
    }
}

/// Answer one prompt as a person would: `y` (or the typed word) for yes,
/// Enter for no — the safe default.
fn answer(app: &mut App, p: &Prompt, yes: bool) -> Vec<Effect> {
    if !yes {
        return press(app, KeyCode::Enter);
    }
    if matches!(p, Prompt::Destructive { .. }) {
        for c in testdeck_tui::app::launch::DESTRUCTIVE_WORD.chars() {
            press(app, KeyCode::Char(c));
        }
        return press(app, KeyCode::Enter);
    }
    press(app, KeyCode::Char('y'))
}

/// Mark `case` as a person does: the cursor on it, then the mark key.
fn mark(app: &mut App, case: &testdeck_tui::app::CaseRef) {
    assert!(app.jump_to_case(case), "no case {case:?}");
    app.update(Action::Cmd(Command::Mark));
}

/// Mark `keys` and press `r`; answer every prompt with `yes(prompt)`. Returns the
/// prompts asked, in order, and the launch (plan and context) the App made.
fn launch_in_tui(
    root: &Path,
    keys: &[&str],
    max_risk: Risk,
    yes: &dyn Fn(&Prompt) -> bool,
) -> (Vec<Prompt>, Option<(LaunchPlan, LaunchContext)>) {
    // a new session: no authorization given yet
    let mut app = app_for(root);
    let app = &mut app;
    for k in keys {
        // keys as the tests write them: `catalog:ID` or a tests case's `scope/caseId`
        let case = match k.strip_prefix("catalog:") {
            Some(id) => testdeck_tui::app::CaseRef::Catalog(id.to_owned()),
            None => testdeck_tui::app::CaseRef::tests_key(k),
        };
        mark(app, &case);
    }
    // `m` cycles the session's max risk: readonly, mutating, destructive
    while app.launch().max_risk() != Some(max_risk) {
        app.update(Action::Cmd(Command::MaxRisk));
    }
    let mut fx = app.update(Action::Cmd(Command::Run));
    // several cases: their one-line preview comes first (issue 15); Enter goes on
    if matches!(
        app.layers().overlay(),
        Some(testdeck_tui::app::Overlay::Prompt(
            testdeck_tui::app::Prompt::Preview(_)
        ))
    ) {
        fx = app.update(Action::Cmd(Command::Confirm));
    }
    let mut asked = Vec::new();
    while let Some(p) = prompt(app) {
        assert!(asked.len() < 20, "prompts never end: {asked:?}");
        fx = answer(app, &p, yes(&p));
        asked.push(p);
    }
    let launch = fx.into_iter().find_map(|e| match e {
        Effect::Launch { plan, ctx, .. } => Some((*plan, *ctx)),
        _ => None,
    });
    (asked, launch)
}

/// Launch for real and return what started: catalog cases whose command was
/// shown (it runs), and tests-tree cases the runner was started for.
fn started(ctx: LaunchContext, plan: LaunchPlan) -> BTreeSet<String> {
    let seen: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let s2 = seen.clone();
    let sink: exec::Sink = Arc::new(move |ev: ExecEvent| {
        let mut s = s2.lock().expect("lock");
        match ev {
            ExecEvent::CaseStart {
                id,
                command: Some(_),
                ..
            } => {
                s.insert(id);
            }
            ExecEvent::RunnerStart { command } => {
                // one runner call for every tests target: each `--case` a
                // caseId, or (several scopes) a case's file
                for pair in command.windows(2).filter(|w| w[0] == "--case") {
                    let name = pair[1].rsplit('/').next().unwrap_or_default();
                    let case = name.split('.').next().unwrap_or_default();
                    s.insert(format!("tests:{case}"));
                }
            }
            _ => {}
        }
    });
    let mut h = exec::launch(ctx, plan, sink);
    h.wait();
    seen.lock().expect("lock").clone()
}

fn tests_targets() -> Vec<TestsTarget> {
    [PLAIN, LIVE]
        .iter()
        .map(|k| {
            let (scope, id) = k.rsplit_once('/').expect("key");
            TestsTarget::Cases {
                scope: scope.into(),
                case_ids: vec![id.into()],
            }
        })
        .collect()
}

fn all_keys() -> Vec<String> {
    let mut keys: Vec<String> = CATALOG_IDS.iter().map(|i| format!("catalog:{i}")).collect();
    keys.push(PLAIN.into());
    keys.push(LIVE.into());
    keys
}

/// `testdeck run` with these flags, through the same core `run` uses.
fn started_headless(root: &Path, max_risk: Risk, grants: &[Grantable]) -> BTreeSet<String> {
    let flags =
        |f: fn(&Grantable) -> Option<String>| grants.iter().filter_map(f).collect::<Vec<_>>();
    let g = testdeck_cli::run::grants_from_flags(
        &flags(|g| match g {
            Grantable::Risk(r) => Some(r.as_str().to_owned()),
            _ => None,
        }),
        &flags(|g| match g {
            Grantable::Gate(n) => Some(n.clone()),
            _ => None,
        }),
        grants.contains(&Grantable::Live),
        grants.contains(&Grantable::Remote),
    )
    .expect("flags");
    let ws = Workspace::load(root).expect("load");
    let plan = LaunchPlan {
        tests: tests_targets(),
        runs: None,
        headless: true,
        grants: g,
        catalog: exec::CatalogPlan {
            ids: CATALOG_IDS.iter().map(|s| (*s).to_owned()).collect(),
            max_risk: Some(max_risk),
            label: "table".into(),
        },
    };
    started(LaunchContext::of(&ws), plan)
}

const GRANTABLES: [fn() -> Grantable; 5] = [
    || Grantable::Remote,
    || Grantable::Live,
    || Grantable::Risk(Risk::Mutating),
    || Grantable::Risk(Risk::Destructive),
    || Grantable::Gate("wipe".into()),
];

/// Every combination of remote HOST × where the switches are set (catalog vars,
/// which must count for nothing, or local.yaml) × max risk × the set of things
/// granted (headless: by flags; TUI: by answering yes to exactly those prompts
/// and no to the rest — no to all, yes to all, yes to some), over cases of every
/// risk × gate, a run_together pair and live / plain tests-tree cases: the two
/// shells start the same cases. One workspace of the table: every max risk on its
/// own thread (a launch waits mostly on its processes, not the CPU), each with its
/// own App.
fn table(remote: bool, switches_in_local: bool) {
    let host = if remote { REMOTE_HOST } else { "127.0.0.1" };
    // the catalog sets every switch; local.yaml (when used) only mutating
    let vars = "  TD_ALLOW_MUTATING: \"true\"\n  TD_ALLOW_DESTRUCTIVE: \"true\"\n  TD_ALLOW_WIPE: \"true\"\n";
    let local = if switches_in_local {
        format!("HOST: \"{host}\"\nTD_ALLOW_MUTATING: \"true\"\n")
    } else {
        format!("HOST: \"{host}\"\n")
    };
    let ws = workspace(vars, &local);
    let root = ws.path();
    let rows: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = Risk::ALL
            .into_iter()
            .map(|max| scope.spawn(move || table_rows(root, remote, switches_in_local, max)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a row failed"))
            .sum()
    });
    assert_eq!(rows, 3 * 32);
}

// The table in four tests, one per workspace (the harness spreads them over its
// threads rather than one test holding the suite's tail).
#[test]
fn headless_and_tui_start_the_same_cases_on_loopback() {
    table(false, false);
}

#[test]
fn headless_and_tui_start_the_same_cases_on_loopback_with_local_switches() {
    table(false, true);
}

#[test]
fn headless_and_tui_start_the_same_cases_on_a_remote_host() {
    table(true, false);
}

#[test]
fn headless_and_tui_start_the_same_cases_on_a_remote_host_with_local_switches() {
    table(true, true);
}

/// Every set of grants for one workspace and max risk; returns the rows checked.
fn table_rows(root: &Path, remote: bool, switches_in_local: bool, max: Risk) -> usize {
    let keys = all_keys();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut rows = 0;
    for bits in 0u32..32 {
        let granted: Vec<Grantable> = GRANTABLES
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & (1 << i) != 0)
            .map(|(_, g)| g())
            .collect();
        let ctx = format!(
            "remote={remote} local_switch={switches_in_local} max={max} granted={granted:?}"
        );
        let headless = started_headless(root, max, &granted);
        let (asked, launch) = launch_in_tui(root, &keys, max, &|p| granted.contains(&p.grants()));
        let tui = launch.map_or_else(BTreeSet::new, |(plan, c)| started(c, plan));
        assert_eq!(headless, tui, "{ctx}: asked {asked:?}");
        // what holds whatever the path
        if remote {
            let first = asked.first();
            assert!(
                matches!(first, Some(Prompt::Remote { .. }))
                    || granted.contains(&Grantable::Remote)
                        && !asked.iter().any(|p| matches!(p, Prompt::Remote { .. })),
                "{ctx}: the remote HOST was not asked first: {asked:?}"
            );
            if !granted.contains(&Grantable::Remote) {
                assert!(tui.is_empty(), "{ctx}: {tui:?}");
            }
        }
        if !granted.contains(&Grantable::Risk(Risk::Destructive)) {
            assert!(
                !tui.contains("TC-OPS-003") && !tui.contains("TC-OPS-007"),
                "{ctx}: catalog vars authorized destructive: {tui:?}"
            );
        }
        assert_eq!(
            tui.contains("TC-OPS-006"),
            tui.contains("TC-OPS-007"),
            "{ctx}: a run_together pair ran in part: {tui:?}"
        );
        if !remote || granted.contains(&Grantable::Remote) {
            assert!(tui.contains("TC-OPS-001"), "{ctx}: {tui:?}");
            assert!(tui.contains("tests:plain-case"), "{ctx}");
            assert_eq!(
                tui.contains("tests:live-case"),
                granted.contains(&Grantable::Live),
                "{ctx}"
            );
            assert_eq!(
                tui.contains("TC-OPS-002"),
                max >= Risk::Mutating
                    && (switches_in_local || granted.contains(&Grantable::Risk(Risk::Mutating))),
                "{ctx}: {tui:?}"
            );
        }
        rows += 1;
    }
    rows
}

#[test]
fn the_tui_asks_about_a_remote_host_before_any_case() {
    let ws = workspace("", &format!("HOST: \"{REMOTE_HOST}\"\n"));
    let root = ws.path();
    // a readonly catalog case and a plain tests-tree case: nothing else to ask
    let keys = ["catalog:TC-OPS-001", PLAIN];
    let (asked, launch) = launch_in_tui(root, &keys, Risk::Readonly, &|_| false);
    assert_eq!(
        asked,
        [Prompt::Remote {
            host: REMOTE_HOST.into()
        }]
    );
    let (plan, ctx) = launch.expect("a launch (of nothing)");
    assert!(started(ctx, plan).is_empty());
    let (asked, launch) = launch_in_tui(root, &keys, Risk::Readonly, &|_| true);
    assert_eq!(asked.len(), 1);
    let (plan, ctx) = launch.expect("a launch");
    assert_eq!(
        plan.grants.get(&Grantable::Remote),
        Some(GrantSource::Prompt)
    );
    let s = started(ctx, plan);
    assert!(
        s.contains("TC-OPS-001") && s.contains("tests:plain-case"),
        "{s:?}"
    );
}

#[test]
fn catalog_vars_switches_do_not_spare_the_prompts() {
    let ws = workspace(
        "  TD_ALLOW_DESTRUCTIVE: \"true\"\n  TD_ALLOW_WIPE: \"true\"\n",
        "",
    );
    let (asked, launch) = launch_in_tui(
        ws.path(),
        &["catalog:TC-OPS-005"],
        Risk::Destructive,
        &|_| false,
    );
    assert!(
        matches!(asked.first(), Some(Prompt::Destructive { case, .. }) if case == "TC-OPS-005"),
        "{asked:?}"
    );
    let (plan, ctx) = launch.expect("a launch");
    assert!(started(ctx, plan).is_empty());
}

#[test]
fn no_to_one_prompt_of_a_group_runs_none_of_it() {
    let ws = workspace("", "");
    let root = ws.path();
    // yes to destructive (typed), no to mutating: the destructive member must
    // not run without its partner
    let (asked, launch) = launch_in_tui(root, &["catalog:TC-OPS-007"], Risk::Destructive, &|p| {
        matches!(p, Prompt::Destructive { .. })
    });
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        matches!(asked[0], Prompt::Destructive { .. }),
        "strictest first: {asked:?}"
    );
    assert!(matches!(asked[1], Prompt::Mutating { .. }), "{asked:?}");
    let (plan, ctx) = launch.expect("a launch");
    assert!(started(ctx, plan).is_empty());
    // yes to both: both run
    let (_, launch) = launch_in_tui(root, &["catalog:TC-OPS-007"], Risk::Destructive, &|_| true);
    let (plan, ctx) = launch.expect("a launch");
    let s = started(ctx, plan);
    assert!(
        s.contains("TC-OPS-006") && s.contains("TC-OPS-007"),
        "{s:?}"
    );
}
