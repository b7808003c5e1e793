use super::*;
use testdeck_core::testkit::strings;

#[test]
fn filters_of_scopes_and_cases() {
    assert_eq!(
        runner_args(&TestsTarget::Scope("ai/backend/tools".into()), None),
        strings(&["--domain", "ai", "--layer", "backend", "--suite", "tools"])
    );
    assert_eq!(
        runner_args(
            &TestsTarget::Cases {
                scope: "ai/backend/tools/terminal/live".into(),
                case_ids: strings(&["a", "b"])
            },
            Some(3)
        ),
        strings(&[
            "--domain", "ai", "--layer", "backend", "--suite", "tools", "--group", "terminal",
            "--group", "live", "--case", "a", "--case", "b", "--runs", "3"
        ])
    );
    assert_eq!(
        scope_filters("temp/probe"),
        strings(&["--domain", "temp", "--group", "probe"])
    );
}

#[test]
fn an_outside_case_is_launched_by_its_file() {
    let d = tempfile::tempdir().expect("dir");
    std::fs::create_dir_all(d.path().join("src/lib")).expect("mkdir");
    std::fs::write(d.path().join("src/lib/filter.test.ts"), "").expect("write");
    std::fs::write(d.path().join("src/lib/filter.ts"), "").expect("write");
    std::fs::write(d.path().join("url.spec.mjs"), "").expect("write");
    std::fs::write(
        d.path().join("testdeck.toml"),
        "[outside]\nvitest = [\"**/*.test.ts\", \"*.spec.mjs\"]\n",
    )
    .expect("toml");
    let one = TestsTarget::Cases {
        scope: "temp/outside/src/lib".into(),
        case_ids: vec!["filter".into()],
    };
    assert_eq!(
        launch_args(d.path(), &one, Some(2)),
        strings(&["--case", "src/lib/filter.test.ts", "--runs", "2"])
    );
    let top = TestsTarget::Cases {
        scope: "temp/outside".into(),
        case_ids: vec!["url".into()],
    };
    assert_eq!(
        launch_args(d.path(), &top, None),
        strings(&["--case", "url.spec.mjs"])
    );
    let folder = TestsTarget::Scope("temp/outside/src".into());
    assert_eq!(
        launch_args(d.path(), &folder, None),
        strings(&["--case", "src/lib/filter.test.ts"])
    );
    let temp = TestsTarget::Scope("temp".into());
    assert_eq!(
        launch_args(d.path(), &temp, None),
        strings(&[
            "--domain",
            "temp",
            "--case",
            "src/lib/filter.test.ts",
            "--case",
            "url.spec.mjs"
        ])
    );
    let tree = TestsTarget::Scope("ai/backend".into());
    assert_eq!(launch_args(d.path(), &tree, None), runner_args(&tree, None));
}

#[test]
fn several_targets_are_one_call_by_their_case_files() {
    let d = tempfile::tempdir().expect("dir");
    for f in [
        "tests/shop/backend/cart/add.test.ts",
        "tests/shop/backend/cart/live/model.test.ts",
        "tests/shop/e2e/checkout/pay.spec.ts",
        "tests/shop/e2e/search/find.spec.ts",
        "tests/blog/backend/posts/list.test.ts",
        "tests/blog/backend/posts/edit.test.ts",
        "tests/temp/probe/p.test.ts",
    ] {
        let p = d.path().join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "").expect("write");
    }
    // one target: the seed's filters, as before
    let one = vec![TestsTarget::Scope("shop/backend".into())];
    assert_eq!(
        selection_args(d.path(), &one, None),
        (runner_args(&one[0], None), Vec::new())
    );
    // several: every case file once, an e2e scope's backend (never its
    // live cases) first, a gone case named apart
    let several = vec![
        TestsTarget::Scope("shop/e2e/checkout".into()),
        TestsTarget::Cases {
            scope: "blog/backend/posts".into(),
            case_ids: strings(&["list", "gone"]),
        },
        TestsTarget::Scope("shop/backend/cart".into()),
    ];
    assert_eq!(
        selection_args(d.path(), &several, Some(2)),
        (
            strings(&[
                "--case",
                "tests/shop/backend/cart/add.test.ts",
                "--case",
                "tests/shop/e2e/checkout/pay.spec.ts",
                "--case",
                "tests/blog/backend/posts/list.test.ts",
                "--runs",
                "2"
            ]),
            strings(&["blog/backend/posts/gone"])
        )
    );
    // a live folder asked for runs its live cases; temp only below temp/
    let live = vec![
        TestsTarget::Scope("shop/backend/cart/live".into()),
        TestsTarget::Scope("temp".into()),
        TestsTarget::Scope("blog".into()),
    ];
    assert_eq!(
        selection_args(d.path(), &live, None).0,
        strings(&[
            "--case",
            "tests/shop/backend/cart/live/model.test.ts",
            "--case",
            "tests/temp/probe/p.test.ts",
            "--case",
            "tests/blog/backend/posts/edit.test.ts",
            "--case",
            "tests/blog/backend/posts/list.test.ts",
        ])
    );
}

#[test]
fn a_launch_owns_only_the_runs_it_asked_for() {
    let scope = TestsTarget::Scope("shop/backend".into());
    assert!(asked_for(&scope, "shop/backend", "x"));
    assert!(asked_for(&scope, "shop/backend/cart", "x"));
    assert!(!asked_for(&scope, "shop/backend-old", "x"));
    assert!(!asked_for(&scope, "shop/e2e/checkout", "x"));
    // an e2e request first runs the domain's backend: those runs are its own
    let e2e = TestsTarget::Scope("shop/e2e/checkout".into());
    assert!(asked_for(&e2e, "shop/e2e/checkout", "pay"));
    assert!(asked_for(&e2e, "shop/backend/cart", "add"));
    assert!(!asked_for(&e2e, "shop/e2e/search", "find"));
    assert!(!asked_for(&e2e, "other/backend/cart", "add"));
    let cases = TestsTarget::Cases {
        scope: "shop/backend/cart".into(),
        case_ids: strings(&["add", "remove"]),
    };
    assert!(asked_for(&cases, "shop/backend/cart", "remove"));
    assert!(!asked_for(&cases, "shop/backend/cart", "total"));
    assert!(!asked_for(&cases, "shop/backend/cart/more", "add"));
    assert!(asked_for(
        &TestsTarget::Scope("temp".into()),
        "temp/probe",
        "p"
    ));
}

#[test]
fn cases_of_one_scope_merge() {
    let m = merge_targets(vec![
        TestsTarget::Cases {
            scope: "a/b/c".into(),
            case_ids: strings(&["x"]),
        },
        TestsTarget::Scope("d".into()),
        TestsTarget::Cases {
            scope: "a/b/c".into(),
            case_ids: strings(&["y", "x"]),
        },
    ]);
    assert_eq!(
        m,
        vec![
            TestsTarget::Scope("d".into()),
            TestsTarget::Cases {
                scope: "a/b/c".into(),
                case_ids: strings(&["x", "y"])
            }
        ]
    );
}

#[test]
fn a_pause_ends_when_it_is_done_not_at_the_end_of_the_poll() {
    // a poll of an hour: the pause returns once `done` says so (the test
    // would hang otherwise), having looked every step until then
    let looks = std::cell::Cell::new(0);
    pause(Duration::from_secs(3600), || {
        looks.set(looks.get() + 1);
        looks.get() == 3
    });
    assert_eq!(looks.get(), 3);
    // and a poll with nothing to wait for looks once at most
    let looks = std::cell::Cell::new(0);
    pause(Duration::ZERO, || {
        looks.set(looks.get() + 1);
        false
    });
    assert!(looks.get() <= 1);
}
