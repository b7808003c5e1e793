//! Writes a synthetic testdeck workspace of any size, for benchmarks and scale tests:
//!
//!     cargo run --release --example gen-workspace -- OUT --cases N --runs M [--catalog K] [--seed S]
//!
//! The shape follows the demo workspace (seed 000 tests tree and raw logs, seed 001
//! catalog). The output is a pure function of the options: the same seed gives the
//! same bytes, so benchmark figures compare like with like.
//!
//! Counts: `--cases N` case files in all (about 1 in 100 under `tests/temp/`);
//! `--runs M` run folders in all (about 1 in 500 in progress — no `meta.json` — and
//! about 1 in 499 for orphan cases whose test file does not exist).

use rayon::prelude::*;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

const DOMAINS: [&str; 12] = [
    "ai",
    "kb-search",
    "docx",
    "sync",
    "auth",
    "editor",
    "export",
    "notes",
    "settings",
    "share",
    "import",
    "billing",
];
const SUITES: [&str; 8] = [
    "tools",
    "query",
    "render",
    "session",
    "storage",
    "workbench",
    "panel",
    "pipeline",
];
const GROUPS: [&str; 4] = ["basic", "boundary", "scenario", "live"];
const DEEPER: [&str; 3] = ["terminal", "files", "network"];
const STEP_NAMES: [&str; 6] = [
    "fixture/load",
    "app/open",
    "request/submit",
    "result/await",
    "state/check",
    "cleanup/run",
];
/// The smallest valid zip (an empty archive: only the end-of-central-directory record).
const EMPTY_ZIP: [u8; 22] = [
    0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];
/// A valid 1x1 PNG (one red pixel).
const TINY_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// What to generate.
#[derive(Debug, Clone, clap::Parser)]
#[command(about = "Write a synthetic testdeck workspace")]
pub struct Options {
    /// The folder to write (created; must be missing or empty).
    pub out: PathBuf,
    /// Case files in all (temp cases included).
    #[arg(long, default_value_t = 100)]
    pub cases: usize,
    /// Run folders in all (in-progress and orphan runs included).
    #[arg(long, default_value_t = 500)]
    pub runs: usize,
    /// Tester catalog cases (0: no catalog).
    #[arg(long, default_value_t = 0)]
    pub catalog: usize,
    /// Seed of the pseudo-random choices.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub cases: usize,
    pub temp_cases: usize,
    pub unregistered_cases: usize,
    pub runs: usize,
    pub in_progress_runs: usize,
    pub orphan_runs: usize,
    pub passed_runs: usize,
    pub failed_runs: usize,
    pub catalog_cases: usize,
    pub files: usize,
}

/// One case of the tests tree. (`case_id` is the seed's name, kept on purpose.)
#[allow(clippy::struct_field_names)]
struct Case {
    /// Folders between `tests/` and the file.
    scope: String,
    case_id: String,
    e2e: bool,
    live: bool,
    temp: bool,
    registered: bool,
    /// Chance in 1000 that a run of this case fails.
    fail_per_mille: u32,
    steps: usize,
}

/// One run folder to write.
struct Run {
    scope: String,
    case_id: String,
    /// Milliseconds since the generator's epoch (2026-01-01T00:00:00Z).
    start_ms: i64,
    duration_ms: i64,
    failed: bool,
    in_progress: bool,
    e2e: bool,
    live: bool,
    steps: usize,
}

fn main() -> io::Result<()> {
    let opts = <Options as clap::Parser>::parse();
    let t0 = std::time::Instant::now();
    let s = generate(&opts)?;
    println!(
        "wrote {} cases ({} temp, {} unregistered), {} runs ({} passed, {} failed, {} in progress, {} orphan), {} catalog cases: {} files in {:.1} s to {}",
        s.cases,
        s.temp_cases,
        s.unregistered_cases,
        s.runs,
        s.passed_runs,
        s.failed_runs,
        s.in_progress_runs,
        s.orphan_runs,
        s.catalog_cases,
        s.files,
        t0.elapsed().as_secs_f64(),
        opts.out.display()
    );
    Ok(())
}

/// Write the workspace `opts` describes.
pub fn generate(opts: &Options) -> io::Result<Summary> {
    if let Ok(mut rd) = std::fs::read_dir(&opts.out) {
        if rd.next().is_some() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} is not empty", opts.out.display()),
            ));
        }
    }
    std::fs::create_dir_all(&opts.out)?;
    let mut rng = fastrand::Rng::with_seed(opts.seed);
    let cases = plan_cases(&mut rng, opts.cases);
    let runs = plan_runs(&mut rng, &cases, opts.runs);
    let mut summary = Summary {
        cases: cases.len(),
        temp_cases: cases.iter().filter(|c| c.temp).count(),
        unregistered_cases: cases.iter().filter(|c| !c.registered).count(),
        runs: runs.len(),
        in_progress_runs: runs.iter().filter(|r| r.in_progress).count(),
        orphan_runs: runs
            .iter()
            .filter(|r| r.case_id.starts_with("orphan-"))
            .count(),
        passed_runs: runs.iter().filter(|r| !r.in_progress && !r.failed).count(),
        failed_runs: runs.iter().filter(|r| !r.in_progress && r.failed).count(),
        ..Summary::default()
    };
    let out = &opts.out;
    let case_files: usize = cases
        .par_iter()
        .map(|c| write_case(out, c))
        .collect::<io::Result<Vec<usize>>>()?
        .into_iter()
        .sum();
    let run_files: usize = runs
        .par_iter()
        .map(|r| write_run(out, r))
        .collect::<io::Result<Vec<usize>>>()?
        .into_iter()
        .sum();
    let plan_files = write_plan(out, &cases)?;
    write(
        out,
        "testdeck.toml",
        "[runner]\ncommand = [\"node\", \"scripts/test-workflow.mjs\"]\n",
    )?;
    let mut files = case_files + run_files + plan_files + 1;
    if opts.catalog > 0 {
        files += write_catalog(out, &mut rng, opts.catalog)?;
        summary.catalog_cases = opts.catalog;
    }
    summary.files = files;
    Ok(summary)
}

fn plan_cases(rng: &mut fastrand::Rng, n: usize) -> Vec<Case> {
    // about 1000 cases a domain, 5 suites a layer, so the tree stays realistic at any size
    let domains = n.div_ceil(1000).max(1);
    (0..n)
        .map(|i| {
            let temp = i % 100 == 99;
            let d = i % domains;
            let domain = if d < DOMAINS.len() {
                DOMAINS[d].to_owned()
            } else {
                format!("{}-{}", DOMAINS[d % DOMAINS.len()], d / DOMAINS.len())
            };
            let e2e = rng.u32(..100) < 30;
            let suite = SUITES[rng.usize(..5) + usize::from(e2e) * 3];
            let group = GROUPS[rng.usize(..GROUPS.len())];
            let live = group == "live" && !temp;
            let case_id = format!("{suite}-{group}-{i:06}");
            let scope = if temp {
                "temp".to_owned()
            } else if i % 37 == 0 {
                // a case directly under its suite
                format!("{domain}/{}/{suite}", if e2e { "e2e" } else { "backend" })
            } else if suite == "tools" && i % 3 == 0 {
                // deeper groups, like ai/backend/tools/terminal/basic
                let deeper = DEEPER[rng.usize(..DEEPER.len())];
                format!("{domain}/backend/{suite}/{deeper}/{group}")
            } else {
                format!(
                    "{domain}/{}/{suite}/{group}",
                    if e2e { "e2e" } else { "backend" }
                )
            };
            Case {
                scope,
                case_id,
                e2e,
                live,
                temp,
                registered: temp || i % 200 != 7,
                fail_per_mille: [0, 0, 0, 50, 150, 400][rng.usize(..6)],
                steps: 1 + rng.usize(..STEP_NAMES.len()),
            }
        })
        .collect()
}

fn plan_runs(rng: &mut fastrand::Rng, cases: &[Case], m: usize) -> Vec<Run> {
    if cases.is_empty() {
        return Vec::new();
    }
    // runs spread over 60 days, in time order; run j belongs to case j % N, so the
    // newest run of every case is near the end
    let span_ms: i64 = 60 * 24 * 3600 * 1000;
    let step = (span_ms / m.max(1) as i64).max(1);
    (0..m)
        .map(|j| {
            let c = &cases[j % cases.len()];
            let orphan = j % 499 == 498 && !c.temp;
            let start_ms = j as i64 * step + rng.i64(0..step.min(1000));
            let duration_ms = if c.live {
                20_000 + rng.i64(0..40_000)
            } else if c.e2e {
                5_000 + rng.i64(0..15_000)
            } else {
                300 + rng.i64(0..3_000)
            };
            Run {
                scope: c.scope.clone(),
                case_id: if orphan {
                    format!("orphan-{j:07}")
                } else {
                    c.case_id.clone()
                },
                start_ms,
                duration_ms,
                failed: rng.u32(..1000) < c.fail_per_mille,
                in_progress: j % 500 == 250,
                e2e: c.e2e,
                live: c.live,
                steps: c.steps,
            }
        })
        .collect()
}

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

fn write_case(root: &Path, c: &Case) -> io::Result<usize> {
    let mut body = format!(
        "import {{ defineCase }} from \"{}harness/case\";\n\nexport default defineCase({{\n  caseId: \"{}\",\n  scope: \"{}\",\n  async run({{ step, assert, ctx }}) {{\n",
        "../".repeat(c.scope.split('/').count()),
        c.case_id,
        c.scope
    );
    for (k, name) in STEP_NAMES.iter().take(c.steps).enumerate() {
        let _ = writeln!(
            body,
            "    await step(\"s{}\", \"{name}\", () => ctx.run(\"{name}\"));",
            k + 1
        );
    }
    body.push_str("    assert(\"a1\", \"oracle/result\", ctx.result, \"ok\");\n  },\n});\n");
    write(
        root,
        &format!("tests/{}/{}.test.ts", c.scope, c.case_id),
        body,
    )?;
    Ok(1)
}

fn iso(ms: i64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(1_767_225_600_000 + ms).unwrap_or_default();
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn run_id(ms: i64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(1_767_225_600_000 + ms).unwrap_or_default();
    t.format("%Y%m%d-%H%M%S-%3f").to_string()
}

#[expect(
    clippy::too_many_lines,
    reason = "writes one run's files in the order a real run writes them"
)]
fn write_run(root: &Path, r: &Run) -> io::Result<usize> {
    let id = run_id(r.start_ms);
    let dir = format!("tests/logs/{}/{}/{id}", r.scope, r.case_id);
    let mut timeline = String::new();
    let per = r.duration_ms / (r.steps as i64 + 3);
    let mut t = r.start_ms;
    let mut event = |t: i64, kind: &str, name: &str, status: &str, id: &str, message: &str| {
        let id = if id.is_empty() {
            String::new()
        } else {
            format!(",\"id\":\"{id}\"")
        };
        let _ = writeln!(
            timeline,
            "{{\"ts\":\"{}\",\"type\":\"{kind}\",\"name\":\"{name}\",\"status\":\"{status}\"{id},\"message\":\"{message}\",\"data\":{{}}}}",
            iso(t)
        );
    };
    event(t, "run", "run/start", "info", "", "case started");
    for (k, name) in STEP_NAMES.iter().take(r.steps).enumerate() {
        t += per;
        event(t, "step", name, "ok", &format!("s{}", k + 1), "step done");
    }
    t += per;
    event(t, "signal", "signal/ipc", "info", "", "ipc call observed");
    let mut files = 2;
    if r.in_progress {
        write(root, &format!("{dir}/timeline.jsonl"), timeline)?;
        write(
            root,
            &format!("{dir}/runtime-events.jsonl"),
            "{\"type\":\"session.started\"}\n",
        )?;
        return Ok(files);
    }
    t += per;
    event(
        t,
        "assertion",
        "oracle/result",
        if r.failed { "failed" } else { "ok" },
        "a1",
        if r.failed {
            "result differs from oracle"
        } else {
            "result matches oracle"
        },
    );
    let mut items = Vec::new();
    if r.e2e {
        items.push(("trace", "trace", "artifacts/trace.zip", String::new()));
        write(root, &format!("{dir}/artifacts/trace.zip"), EMPTY_ZIP)?;
        files += 1;
        if r.failed {
            items.push((
                "failure-screenshot",
                "screenshot",
                "artifacts/failure.png",
                "\"assertionId\":\"a1\"".to_owned(),
            ));
            write(root, &format!("{dir}/artifacts/failure.png"), TINY_PNG)?;
            items.push((
                "playwright-report",
                "playwright-report",
                "artifacts/playwright/report/index.html",
                String::new(),
            ));
            write(
                root,
                &format!("{dir}/artifacts/playwright/report/index.html"),
                "<!doctype html><title>report</title><h1>1 failed</h1>\n",
            )?;
            files += 2;
        }
    }
    for (aid, kind, path, _) in &items {
        event(
            t,
            "artifact",
            &format!("artifact/{kind}"),
            "info",
            aid,
            path,
        );
    }
    let end = r.start_ms + r.duration_ms.max(t - r.start_ms);
    event(
        end,
        "run",
        "run/finish",
        if r.failed { "failed" } else { "ok" },
        "",
        "case finished",
    );
    write(root, &format!("{dir}/timeline.jsonl"), timeline)?;
    write(
        root,
        &format!("{dir}/runtime-events.jsonl"),
        "{\"type\":\"session.started\"}\n{\"type\":\"session.closed\"}\n",
    )?;
    let items_json: Vec<String> = items
        .iter()
        .map(|(aid, kind, path, refs)| {
            format!(
                "{{\"id\":\"{aid}\",\"kind\":\"{kind}\",\"path\":\"{path}\",\"refs\":{{{refs}}}}}"
            )
        })
        .collect();
    write(
        root,
        &format!("{dir}/artifacts.json"),
        format!(
            "{{\"schemaVersion\":4,\"items\":[{}]}}\n",
            items_json.join(",")
        ),
    )?;
    let (driver, target) = if r.e2e {
        ("playwright", "electron")
    } else {
        ("node-harness", "main-process")
    };
    let model = if r.live { "\"gpt-4.1-mini\"" } else { "null" };
    let meta = format!(
        "{{\n  \"schemaVersion\": 4,\n  \"runId\": \"{id}\",\n  \"caseId\": \"{}\",\n  \"scope\": \"{}\",\n  \"status\": \"{}\",\n  \"startedAt\": \"{}\",\n  \"finishedAt\": \"{}\",\n  \"stats\": {{\"durationMs\": {}, \"steps\": {}, \"assertions\": 1, \"errors\": 0, \"artifacts\": {}}},\n  \"runtime\": {{\"driver\": \"{driver}\", \"target\": \"{target}\", \"modelName\": {model}}}\n}}\n",
        r.case_id,
        r.scope,
        if r.failed { "failed" } else { "passed" },
        iso(r.start_ms),
        iso(end),
        end - r.start_ms,
        r.steps,
        items.len()
    );
    write(root, &format!("{dir}/meta.json"), meta)?;
    Ok(files + 2)
}

fn write_plan(root: &Path, cases: &[Case]) -> io::Result<usize> {
    let mut by_domain: std::collections::BTreeMap<&str, Vec<&Case>> =
        std::collections::BTreeMap::new();
    for c in cases.iter().filter(|c| c.registered && !c.temp) {
        let domain = c.scope.split('/').next().unwrap_or_default();
        by_domain.entry(domain).or_default().push(c);
    }
    for (k, (domain, list)) in by_domain.iter().enumerate() {
        let mut text = format!("# {domain} 测试计划\n\n");
        // both registration styles of the demo: heading sections and table rows
        if k % 2 == 0 {
            for c in list {
                let _ = write!(
                    text,
                    "## {}\n\n- What: {} works\n- Why: regression baseline\n- How: run `{}`\n- Oracle: result is ok\n- Not: performance\n\n",
                    c.case_id, c.scope, c.case_id
                );
            }
        } else {
            text.push_str(
                "| caseId | What | Why | How | Oracle | Not |\n|---|---|---|---|---|---|\n",
            );
            for c in list {
                let _ = writeln!(
                    text,
                    "| {} | {} works | regression baseline | run it | result is ok | performance |",
                    c.case_id, c.scope
                );
            }
        }
        write(root, &format!("doc/test-plan/{domain}.md"), text)?;
    }
    Ok(by_domain.len())
}

fn write_catalog(root: &Path, rng: &mut fastrand::Rng, k: usize) -> io::Result<usize> {
    const CATEGORIES: [(&str, &str); 4] = [
        ("CLI", "status_probe: false"),
        ("API", ""),
        (
            "WEB",
            "status_probe:\n      url: ${WEB_BASE}/health\n      stop_if:\n        status: [maintenance]",
        ),
        ("APP", ""),
    ];
    let mut catalog = String::from("categories:\n");
    for (id, probe) in CATEGORIES {
        let _ = writeln!(catalog, "  - id: {id}\n    title: {id} cases");
        if !probe.is_empty() {
            let _ = writeln!(catalog, "    {probe}");
        }
    }
    catalog.push_str(
        "risks: [readonly, mutating, destructive]\ndefault_max_risk: mutating\nvars:\n  API_BASE: http://${HOST}:8095\n  WEB_BASE: http://${HOST}:5173\n\
authorize:\n  mutating: TESTER_ALLOW_MUTATING\n  destructive: TESTER_ALLOW_DESTRUCTIVE\ngates:\n  reset-index: TESTER_GATE_RESET_INDEX\n\
sessions:\n  web:\n    kind: browser\n    reuse: run\n  phone:\n    kind: mobile\n    reuse: persist\nid_pattern: ^TC-[A-Z]+-\\d{5}$\n\
status_probe:\n  url: ${API_BASE}/health\n  stop_if:\n    status: [maintenance]\n",
    );
    if k >= 4 {
        catalog.push_str(
            "run_together:\n  - ids: [TC-CLI-00000, TC-CLI-00004]\n    continue_on_fail: true\n",
        );
    }
    write(root, ".pouch/tester/catalog.yaml", catalog)?;
    let mut files = 1;
    for (ci, (cat, _)) in CATEGORIES.iter().enumerate() {
        let mut text = format!("category: {cat}\ncases:\n");
        for i in (ci..k).step_by(CATEGORIES.len()) {
            let risk = [
                "readonly",
                "readonly",
                "readonly",
                "mutating",
                "destructive",
            ][rng.usize(..5)];
            let tag = if risk == "readonly" && rng.bool() {
                "smoke"
            } else {
                ["full", "slow"][rng.usize(..2)]
            };
            let lifecycle =
                ["active", "active", "active", "active", "pending", "retired"][rng.usize(..6)];
            let _ = write!(
                text,
                "  - id: TC-{cat}-{i:05}\n    category: {cat}\n    title: case {i}\n    what: case {i} behaves\n    lifecycle: {lifecycle}\n    tag: {tag}\n    risk: {risk}\n"
            );
            if risk == "destructive" {
                text.push_str("    gate: reset-index\n");
            }
            match *cat {
                "CLI" => {
                    let _ = write!(
                        text,
                        "    driver: script\n    how:\n      run: echo case {i} && exit {}\n    expected:\n      - kind: script-exit\n        value: 0\n",
                        u8::from(i % 10 == 9)
                    );
                }
                "API" => text.push_str(
                    "    driver: script\n    how:\n      url: ${API_BASE}/health\n    expected:\n      - kind: api-status\n        value: 200\n",
                ),
                "WEB" => text.push_str(
                    "    driver: browser\n    session: web\n    how:\n      url: ${WEB_BASE}/\n      steps:\n        - open the page\n    expected:\n      - kind: visible-text\n        value: Welcome\n",
                ),
                _ => text.push_str(
                    "    automation: manual\n    how:\n      steps:\n        - open the app\n        - look at the banner\n    expected:\n      - kind: interaction\n        value: the banner shows\n",
                ),
            }
        }
        write(
            root,
            &format!(".pouch/tester/cases/{}.yaml", cat.to_ascii_lowercase()),
            text,
        )?;
        files += 1;
    }
    Ok(files)
}
