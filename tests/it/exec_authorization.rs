//! Who may launch a catalog case: authorization asked, recorded and required
//! (headless and through the launch API), a remote host refused unless
//! allowed; real HTTP servers on 127.0.0.1 and real `sh` processes.

use crate::exec_catalog::{run, server, workspace};

#[test]
fn authorization_is_required_and_recorded() {
    let ws = workspace(server());
    let root = ws.path();
    // nothing authorized: skipped, and the commands did not run
    let r = run(root, &["TC-MAIN-008", "TC-MAIN-009", "TC-MAIN-012"], &[]);
    // every case skipped: nothing ran, which `--no-tests=fail` (the default) exits 4 for
    assert_eq!(r.code, 4);
    assert_eq!(r.verdict("TC-MAIN-008"), "skipped");
    assert_eq!(
        r.reason("TC-MAIN-008"),
        "mutating is not authorized: needs TD_ALLOW_MUTATING=true or --authorize mutating"
    );
    assert_eq!(r.verdict("TC-MAIN-009"), "skipped");
    assert_eq!(r.verdict("TC-MAIN-012"), "skipped");
    assert!(!root.join("marker-mutating").exists());
    assert!(!root.join("marker-destructive").exists());
    // a variable that is not `true` authorizes nothing
    let r = run(root, &["TC-MAIN-008"], &[("TD_ALLOW_MUTATING", "yes")]);
    assert_eq!(r.verdict("TC-MAIN-008"), "skipped");
    assert!(!root.join("marker-mutating").exists());
    // destructive authorized but its gate is not
    let r = run(root, &["TC-MAIN-009", "--authorize", "destructive"], &[]);
    assert_eq!(r.verdict("TC-MAIN-009"), "skipped");
    assert_eq!(
        r.reason("TC-MAIN-009"),
        "gate billing is not authorized: needs TD_ALLOW_BILLING=true or --gate billing"
    );
    assert!(!root.join("marker-destructive").exists());
    // a max risk below the case's risk: left out by the selection, recorded as skipped
    let r = run(
        root,
        &[
            "TC-MAIN-008",
            "--authorize",
            "mutating",
            "--max-risk",
            "readonly",
        ],
        &[],
    );
    assert_eq!(r.verdict("TC-MAIN-008"), "skipped");
    assert_eq!(
        r.reason("TC-MAIN-008"),
        "risk mutating is above max-risk readonly"
    );
    assert!(!root.join("marker-mutating").exists());
    // flags authorize
    let r = run(
        root,
        &[
            "TC-MAIN-008",
            "TC-MAIN-009",
            "TC-MAIN-012",
            "--authorize",
            "mutating",
            "--authorize",
            "destructive",
            "--gate",
            "billing",
        ],
        &[],
    );
    assert_eq!(r.code, 0, "{:#?}", r.summary());
    assert_eq!(r.verdict("TC-MAIN-008"), "pass");
    assert_eq!(r.verdict("TC-MAIN-009"), "pass");
    assert_eq!(
        r.verdict("TC-MAIN-012"),
        "pass",
        "{}",
        r.reason("TC-MAIN-012")
    );
    assert!(root.join("marker-mutating").exists());
    assert!(root.join("marker-destructive").exists());
    let rec = testdeck_exec::record::read_record(root, &r.record(root)).expect("record");
    let auths: Vec<(String, String, Option<String>)> = rec
        .authorizations
        .iter()
        .map(|a| (a.what.clone(), a.how.clone(), a.variable.clone()))
        .collect();
    assert_eq!(
        auths,
        [
            (
                "risk:mutating".into(),
                "flag".into(),
                Some("TD_ALLOW_MUTATING".into())
            ),
            (
                "risk:destructive".into(),
                "flag".into(),
                Some("TD_ALLOW_DESTRUCTIVE".into())
            ),
            (
                "gate:billing".into(),
                "flag".into(),
                Some("TD_ALLOW_BILLING".into())
            ),
        ]
    );
    // the environment authorizes too, and says so
    std::fs::remove_file(root.join("marker-mutating")).expect("rm");
    let r = run(root, &["TC-MAIN-008"], &[("TD_ALLOW_MUTATING", "true")]);
    assert_eq!(r.verdict("TC-MAIN-008"), "pass");
    assert!(root.join("marker-mutating").exists());
    let rec = testdeck_exec::record::read_record(root, &r.record(root)).expect("record");
    assert_eq!(rec.authorizations[0].how, "environment");
    // and so does local.yaml
    std::fs::remove_file(root.join("marker-mutating")).expect("rm");
    let local = root.join(".pouch/tester/local.yaml");
    let mut text = std::fs::read_to_string(&local).expect("local");
    text.push_str("TD_ALLOW_MUTATING: \"true\"\n");
    std::fs::write(&local, text).expect("local");
    let r = run(root, &["TC-MAIN-008"], &[]);
    assert_eq!(r.verdict("TC-MAIN-008"), "pass");
    assert!(root.join("marker-mutating").exists());
    let rec = testdeck_exec::record::read_record(root, &r.record(root)).expect("record");
    assert_eq!(rec.authorizations[0].how, "local.yaml");
    // the environment wins over local.yaml
    std::fs::remove_file(root.join("marker-mutating")).expect("rm");
    let r = run(root, &["TC-MAIN-008"], &[("TD_ALLOW_MUTATING", "false")]);
    assert_eq!(r.verdict("TC-MAIN-008"), "skipped");
    assert!(!root.join("marker-mutating").exists());
    // assume holds when its variable is set
    let r = run(root, &["TC-MAIN-007"], &[("TD_FLAG", "yes")]);
    assert_eq!(r.verdict("TC-MAIN-007"), "pass");
    assert!(root.join("marker-assume").exists());
}

#[test]
fn a_remote_host_is_refused_headless_unless_allowed() {
    let ws = workspace(server());
    let root = ws.path();
    let r = run(root, &["TC-OFF-005"], &[("HOST", "test.example.invalid")]);
    assert_eq!(r.verdict("TC-OFF-005"), "skipped");
    assert!(r.reason("TC-OFF-005").contains("--allow-remote"));
    assert!(!root.join("marker-remote").exists());
    let r = run(
        root,
        &["TC-OFF-005", "--allow-remote"],
        &[("HOST", "test.example.invalid")],
    );
    assert_eq!(r.verdict("TC-OFF-005"), "pass");
    assert!(root.join("marker-remote").exists());
    let rec = testdeck_exec::record::read_record(root, &r.record(root)).expect("record");
    assert_eq!(rec.host, "test.example.invalid");
    assert_eq!(rec.authorizations[0].what, "remote");
}

#[test]
fn the_launch_api_asks_then_runs_and_takes_a_persons_verdict() {
    use testdeck_exec::{
        self as exec, CatalogPlan, Decision, ExecEvent, GrantSource, Grantable, LaunchContext,
        LaunchPlan, Prompt, Risk,
    };
    let ws = workspace(server());
    let root = ws.path();
    let loaded = testdeck_core::Workspace::load(root).expect("workspace");
    let ctx = LaunchContext::of(&loaded);
    let mut plan = LaunchPlan {
        headless: false,
        catalog: CatalogPlan {
            ids: vec!["TC-MAIN-008".into(), "TC-MAIN-006".into()],
            max_risk: None,
            label: "tui".into(),
        },
        ..LaunchPlan::default()
    };
    let ds = exec::decisions(&ctx, &plan);
    assert_eq!(ds.len(), 2);
    assert_eq!(ds[0].0, "TC-MAIN-006");
    assert!(matches!(ds[0].1, Decision::Allowed(_)));
    let Decision::NeedsPrompt(p) = &ds[1].1 else {
        panic!("{ds:?}");
    };
    assert_eq!(
        p,
        &Prompt::Mutating {
            case: "TC-MAIN-008".into(),
            host: "127.0.0.1".into()
        }
    );
    plan.grants.grant(p.grants(), GrantSource::Prompt);
    assert!(
        exec::decisions(&ctx, &plan)
            .iter()
            .all(|(_, d)| matches!(d, Decision::Allowed(_)))
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let sink: exec::Sink = std::sync::Arc::new(move |ev: ExecEvent| {
        if let Ok(t) = tx.lock() {
            let _ = t.send(ev);
        }
    });
    let mut handle = exec::launch(ctx, plan, sink);
    let summary = handle.wait();
    let events: Vec<ExecEvent> = rx.try_iter().collect();
    assert!(matches!(events.first(), Some(ExecEvent::RunStart { .. })));
    assert!(matches!(events.last(), Some(ExecEvent::Summary(_))));
    let verdicts: Vec<(&str, &str)> = summary
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.verdict.as_str()))
        .collect();
    assert_eq!(
        verdicts,
        [("TC-MAIN-006", "not-run"), ("TC-MAIN-008", "pass")]
    );
    assert!(root.join("marker-mutating").exists());
    // the person's verdict for the case that needs one, through the handle
    assert!(
        handle
            .judge(
                "TC-MAIN-006",
                testdeck_exec::record::Verdict::Fail,
                Some("no welcome text".into())
            )
            .expect("judge")
    );
    assert!(
        !handle
            .judge("TC-NOPE-001", testdeck_exec::record::Verdict::Pass, None)
            .expect("judge")
    );
    let rec = testdeck_exec::record::read_record(root, &handle.record_path().expect("path"))
        .expect("record");
    assert_eq!(rec.label, "tui");
    assert_eq!(rec.max_risk, Risk::Destructive);
    assert_eq!(rec.results[0].verdict.as_str(), "fail");
    assert_eq!(rec.results[0].note.as_deref(), Some("no welcome text"));
    assert_eq!(
        rec.authorizations[0].what,
        Grantable::Risk(Risk::Mutating).label()
    );
    assert_eq!(rec.authorizations[0].how, "prompt");
}
