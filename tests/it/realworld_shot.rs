//! A real Playwright full-page screenshot (issue 14): taken by the fixture's own
//! Playwright on the system Chromium at 3× scale, put in a run folder of
//! `examples/realworld`, and previewed downscaled in the cockpit, not refused.

// d, p, t, x, y: the usual short names of test and pixel code
#![allow(clippy::many_single_char_names)]

use crate::common;
use common::realworld::{e2e_ready, project};

use common::app::{Deck, Runs, options, render};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::Path;
use testdeck_tui::action::Command;
use testdeck_tui::app::{Pane, Screen};
use testdeck_tui::image::{self, State};
use testdeck_tui::theme::Theme;

const CASE: &str = "shop/e2e/storefront/basic/storefront-add-to-cart";
const RUN_ID: &str = "20261201-120000-000";
const SHOT: &str = "artifacts/full-page.png";
/// The page's bands, top to bottom, each 1075 CSS pixels of a 4300 px tall page.
const BANDS: [[u8; 3]; 4] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];

/// The page: four full-width bands, 1280 × 4300 CSS pixels in all.
fn page() -> String {
    use std::fmt::Write as _;
    let mut bands = String::new();
    for [r, g, b] in BANDS {
        write!(
            bands,
            "<div style=\"background:#{r:02x}{g:02x}{b:02x}\"></div>"
        )
        .expect("fmt");
    }
    format!(
        "<!doctype html><html><head><style>html, body {{ margin: 0; padding: 0 }} \
         div {{ width: 1280px; height: 1075px }}</style></head><body>{bands}</body></html>"
    )
}

/// Playwright as the fixture's config launches it (the system Chromium by path); the
/// deadlines are generous, a loaded machine starts Chromium slowly.
const SHOT_SCRIPT: &str = r"import { chromium } from '@playwright/test';
const [page, out, executablePath] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath, timeout: 180_000 });
try {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 720 },
    deviceScaleFactor: 3,
  });
  const tab = await context.newPage();
  await tab.goto(new URL(`file://${page}`).href, { timeout: 180_000 });
  await tab.screenshot({ path: out, fullPage: true, timeout: 180_000 });
} finally {
  await browser.close();
}
";

/// A finished run of `CASE` whose artifacts are its runtime events and `SHOT`, the
/// screenshot taken by the fixture's Playwright (the run folder returned).
fn run_with_shot(root: &Path, chromium: &Path) -> std::path::PathBuf {
    let run = root.join("tests/logs").join(CASE).join(RUN_ID);
    std::fs::create_dir_all(run.join("artifacts")).expect("mkdir");
    let shot_dir = root.join("shot");
    std::fs::create_dir_all(&shot_dir).expect("mkdir");
    std::fs::write(shot_dir.join("page.html"), page()).expect("page");
    // in the project copy, so `@playwright/test` resolves from its node_modules
    std::fs::write(shot_dir.join("shot.mjs"), SHOT_SCRIPT).expect("script");
    let out = std::process::Command::new("node")
        .arg(shot_dir.join("shot.mjs"))
        .arg(shot_dir.join("page.html"))
        .arg(run.join(SHOT))
        .arg(chromium)
        .current_dir(root)
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "the screenshot script failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let (scope, case_id) = CASE.rsplit_once('/').expect("scope/case");
    std::fs::write(
        run.join("meta.json"),
        format!(
            r#"{{"schemaVersion": 4, "runId": "{RUN_ID}", "caseId": "{case_id}",
  "scope": "{scope}", "status": "passed",
  "startedAt": "2026-12-01T12:00:00.000Z", "finishedAt": "2026-12-01T12:00:06.000Z",
  "stats": {{"durationMs": 6000, "steps": 1, "assertions": 0, "errors": 0, "artifacts": 2}},
  "runtime": {{"driver": "playwright", "target": "chromium", "modelName": null}}}}"#
        ),
    )
    .expect("meta");
    std::fs::write(
        run.join("timeline.jsonl"),
        format!(
            r#"{{"ts":"2026-12-01T12:00:00.000Z","type":"run","name":"run/start","status":"info","message":"case {case_id} started","data":{{}}}}
{{"ts":"2026-12-01T12:00:05.000Z","type":"step","name":"page/full-screenshot","status":"ok","id":"s1","message":"full page captured","data":{{"durationMs":5000}}}}
{{"ts":"2026-12-01T12:00:05.500Z","type":"artifact","name":"artifact/screenshot","status":"info","message":"{SHOT}","data":{{"path":"{SHOT}"}}}}
{{"ts":"2026-12-01T12:00:06.000Z","type":"run","name":"run/end","status":"ok","message":"case {case_id} passed","data":{{}}}}
"#
        ),
    )
    .expect("timeline");
    std::fs::write(
        run.join("runtime-events.jsonl"),
        "{\"event\":\"screenshot\",\"fullPage\":true,\"deviceScaleFactor\":3}\n",
    )
    .expect("events");
    std::fs::write(
        run.join("artifacts.json"),
        format!(
            r#"{{"schemaVersion": 4, "items": [
  {{"id": "events", "kind": "jsonl", "path": "runtime-events.jsonl", "refs": {{}}}},
  {{"id": "full-page", "kind": "screenshot", "path": "{SHOT}", "refs": {{"stepId": "s1"}}}}]}}"#
        ),
    )
    .expect("artifacts.json");
    run
}

/// The half-block cells on screen, as (x, y).
fn blocks(t: &Terminal<TestBackend>) -> Vec<(u16, u16)> {
    let b = t.backend().buffer();
    (0..b.area.height)
        .flat_map(|y| (0..b.area.width).map(move |x| (x, y)))
        .filter(|&(x, y)| b[(x, y)].symbol() == "▀")
        .collect()
}

#[test]
fn a_real_playwright_full_page_screenshot_is_previewed_downscaled() {
    let Some(chromium) = e2e_ready() else {
        return;
    };
    let p = project();
    let root = p.path();
    let run = run_with_shot(root, &chromium);
    // the premise: Playwright wrote the page at 3× (3840 × 12900), ~49.5 megapixels,
    // over the 40 megapixels a decode of the whole picture was once refused at
    let bytes = std::fs::read(run.join(SHOT)).expect("screenshot");
    let (w, h) = image::header(&bytes).expect("a PNG");
    assert_eq!((w, h), (3840, 12900), "Playwright's full-page size at 3×");
    assert!(u64::from(w) * u64::from(h) > 40_000_000);

    // run folders and finite jobs (the preview's decode) run as the runtime runs them
    let mut app = Deck::new(options(root, "realworld"), Runs::JOBS)
        .sized(140, 60)
        .loaded();
    assert!(app.jump_to(CASE), "no node {CASE}");
    app.cmd(Command::Open);
    let loaded = app.live().run().expect("a run loaded");
    assert!(loaded.path.ends_with(RUN_ID), "{:?}", loaded.path);
    app.focus_on(Pane::Artifacts);
    app.key(KeyCode::Char('j'));
    assert_eq!(
        app.live().artifacts().cursor,
        1,
        "the screenshot is selected"
    );

    // decoded in the cockpit's own job: the real size kept, the copy downscaled
    let file = run.join(SHOT);
    let Some(State::Ready(pv)) = app.previews().cache().get(&file) else {
        panic!("not previewed: {:?}", app.previews().cache().get(&file));
    };
    assert_eq!((pv.width, pv.height), (3840, 12900));
    let img = &pv.image;
    assert_eq!(
        img.height,
        image::CACHE_SIDE,
        "downscaled to the cache's side"
    );
    assert_eq!(
        img.width,
        image::fit(w, h, image::CACHE_SIDE, image::CACHE_SIDE).0
    );
    assert!(img.width < 100, "the page's aspect kept: {}", img.width);
    // the page's bands, in order, in the middle of each
    let seen: Vec<[u8; 3]> = (0..4)
        .map(|b| img.at(img.width / 2, (2 * b + 1) * img.height / 8))
        .collect();
    assert_eq!(seen, BANDS.to_vec());

    // drawn: the caption with the real size, half blocks, no refusal
    let theme = Theme::builtin("dark", false).expect("dark");
    let t = render(&app, &theme);
    let s = t.backend().to_string();
    assert!(
        s.contains(&format!("{SHOT} · 3840×12900 · i full screen")),
        "{s}"
    );
    assert!(
        !s.contains("preview limit") && !s.contains("no preview"),
        "{s}"
    );
    let cells = blocks(&t);
    assert!(
        cells.len() > 20,
        "a picture is drawn: {} cells\n{s}",
        cells.len()
    );
    let a = app.areas().panes.artifacts.expect("artifacts pane");
    assert!(
        cells
            .iter()
            .all(|&(x, y)| x >= a.x && x < a.x + a.width && y > a.y && y < a.y + a.height),
        "inside the artifacts pane"
    );

    // i: the same picture over the whole screen, the height used
    app.key(KeyCode::Char('i'));
    assert!(matches!(app.layers().screen(), Some(Screen::Image { .. })));
    let t = render(&app, &theme);
    let s = t.backend().to_string();
    assert!(s.contains(&format!("{SHOT} · 3840×12900")), "{s}");
    let rows: std::collections::BTreeSet<u16> = blocks(&t).iter().map(|c| c.1).collect();
    assert!(
        rows.len() >= 50,
        "the full height: {} rows\n{s}",
        rows.len()
    );
}
