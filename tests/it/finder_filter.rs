//! The finder (`/`) and `list --filter` are one matcher over the same fields: on the
//! demo, the same query gives the same cases in both, in the same order.

use crate::common;

use assert_cmd::Command;
use common::app::{Deck, Runs, options};
use serde_json::Value;
use std::path::Path;
use testdeck_tui::app::{App, CaseRef, Finder};

/// The cases the cockpit's finder shows for `q`, best first (through the App's
/// candidates and `Finder::refind`, as typing `/` then `q` does).
fn finder(app: &App, q: &str) -> Vec<CaseRef> {
    let mut f = Finder::with_query(q);
    f.refind(app.domain().candidates());
    f.results()
        .iter()
        .map(|i| app.domain().candidates()[*i].key.clone())
        .collect()
}

/// The cases `testdeck list --filter q --json` prints, in its order.
fn headless(root: &Path, q: &str) -> Vec<CaseRef> {
    let out = Command::cargo_bin("testdeck")
        .expect("bin")
        .args(["--root"])
        .arg(root)
        .args(["list", "--filter", q, "--json"])
        .output()
        .expect("run");
    assert!(out.status.success(), "{q}: {out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{q}: {e}"));
    v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().expect(k).to_owned();
            if s("source") == "catalog" {
                CaseRef::Catalog(s("id"))
            } else {
                CaseRef::Tests {
                    scope: s("scope"),
                    case_id: s("id"),
                }
            }
        })
        .collect()
}

#[test]
fn the_finder_and_list_filter_agree_on_the_demo() {
    let d = common::fs::demo_copy();
    // no size and no effect run: the finder's candidates are all it reads
    let app = Deck::new(options(d.path(), "demo"), Runs::NOTHING).loaded();
    assert!(!app.domain().candidates().is_empty());
    let queries = [
        "CLI$",
        "term !live",
        "'kb-search",
        "^TC-WEB",
        "^kb | ^TC-API",
        "terminal",
        "live",
        "'TC-CLI-00",
        "docx !huge",
        "^search-panel",
        "orphan",
        "search rank",
        "temp/",
        "zzzz-nothing-matches",
    ];
    let mut nonempty = 0;
    for q in queries {
        let tui = finder(&app, q);
        let cli = headless(d.path(), q);
        assert_eq!(tui, cli, "query {q:?}: the finder and list --filter differ");
        nonempty += usize::from(!tui.is_empty());
    }
    // the set is not trivially empty: most queries find something
    assert!(nonempty >= 10, "only {nonempty} queries matched anything");
    // the two disagreements, now one answer each; `|` is or
    assert_eq!(finder(&app, "CLI$").len(), 10);
    let either = finder(&app, "^kb | ^TC-API");
    assert!(either.iter().any(|c| c.target().starts_with("TC-API")));
    assert!(either.iter().any(|c| c.target().starts_with("kb")));
    assert!(
        finder(&app, "term !live")
            .iter()
            .all(|c| !c.target().contains("live")),
        "a negation let a live case through"
    );
}
