//! `testdeck run` on catalog cases, against a real HTTP server on 127.0.0.1 and
//! real `sh` processes: every verdict, probes, run_together, authorization,
//! assume, timeouts with grandchildren, cancel, run records and their CSV.

use crate::common;
use common::cli::bin;
use common::procs::signalable;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A tiny HTTP server answering canned responses by path, until the test ends.
pub(crate) fn server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    return;
                }
                // skip the headers, then read the body: closing with a request body
                // unread makes the kernel answer with a reset the client may see
                // before the response
                let mut length = 0usize;
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = h.split_once(':') {
                        if name.trim().eq_ignore_ascii_case("content-length") {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                }
                let mut body = vec![0u8; length.min(1 << 20)];
                let _ = reader.read_exact(&mut body);
                let mut parts = first.split_whitespace();
                let method = parts.next().unwrap_or("");
                let path = parts.next().unwrap_or("");
                let (status, body) = match (method, path) {
                    ("GET", "/health") => (200, r#"{"status":"ok"}"#),
                    ("GET", "/maint") => (200, r#"{"info":{"state":"maintenance"}}"#),
                    ("GET", "/items") => (200, r#"{"data":{"items":[{"name":"a"}]}}"#),
                    ("POST", "/orders") => (201, r#"{"id":7}"#),
                    _ => (404, r#"{"error":"not found"}"#),
                };
                let reason = if status == 404 { "Not Found" } else { "OK" };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
}

/// A port nobody listens on.
fn dead_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port")
}

const CATALOG: &str = r#"
categories:
  - id: MAIN
    title: Inherits the default probe
  - id: OFF
    title: No probe
    status_probe: false
  - id: STOP
    title: A replaced probe whose answer says stop
    status_probe:
      url: ${API_BASE}/maint
      stop_if:
        info.state: [maintenance, down]
  - id: DEAD
    title: A probe nobody answers
    status_probe:
      url: http://${HOST}:${DEAD_PORT}/health
      stop_if:
        status: [down]
risks: [readonly, mutating, destructive]
default_max_risk: destructive
vars:
  PORT: "1"
  DEAD_PORT: "1"
  API_BASE: http://${HOST}:${PORT}
  WEIRD: "$(touch injected); touch injected2"
authorize:
  mutating: TD_ALLOW_MUTATING
  destructive: TD_ALLOW_DESTRUCTIVE
gates:
  billing: TD_ALLOW_BILLING
id_pattern: "TC-[A-Z]+-[0-9]{3}"
run_together:
  - ids: [TC-OFF-001, TC-OFF-002]
  - ids: [TC-OFF-003, TC-OFF-004]
    continue_on_fail: true
status_probe:
  url: ${API_BASE}/health
  stop_if:
    status: [down]
agent:
  cli: codex
  tier: standard
"#;

fn case(id: &str, cat: &str, risk: &str, extra: &str) -> String {
    let tag = if risk == "readonly" { "smoke" } else { "full" };
    format!(
        "  - id: {id}\n    category: {cat}\n    title: title of {id}\n    what: something observable\n    lifecycle: active\n    tag: {tag}\n    risk: {risk}\n{extra}"
    )
}

fn script(run: &str, exit: i32) -> String {
    format!(
        "    driver: script\n    how:\n      run: |\n        {}\n    expected:\n      - kind: script-exit\n        value: {exit}\n",
        run.replace('\n', "\n        ")
    )
}

pub(crate) fn workspace(port: u16) -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let t = dir.path().join(".pouch/tester");
    std::fs::create_dir_all(t.join("cases")).expect("mkdir");
    std::fs::write(t.join("catalog.yaml"), CATALOG).expect("catalog");
    std::fs::write(
        t.join("local.yaml"),
        format!("PORT: \"{port}\"\nDEAD_PORT: \"{}\"\n", dead_port()),
    )
    .expect("local");
    let main = [
        case("TC-MAIN-001", "MAIN", "readonly", &script("echo hello; exit 0", 0)),
        case("TC-MAIN-002", "MAIN", "readonly", &script("echo broken >&2; exit 2", 0)),
        case(
            "TC-MAIN-003",
            "MAIN",
            "readonly",
            "    driver: script\n    how:\n      url: ${API_BASE}/health\n    expected:\n      - kind: api-status\n        value: 200\n      - kind: api-field\n        value: {path: status, equals: ok}\n",
        ),
        case(
            "TC-MAIN-004",
            "MAIN",
            "readonly",
            "    driver: script\n    how:\n      url: ${API_BASE}/items\n    expected:\n      - kind: api-field\n        value: {path: data.items.0.name, equals: b}\n",
        ),
        case(
            "TC-MAIN-005",
            "MAIN",
            "readonly",
            "    driver: script\n    how:\n      url: ${API_BASE}/missing\n    expected:\n      - kind: api-status\n        value: 200\n",
        ),
        case(
            "TC-MAIN-006",
            "MAIN",
            "readonly",
            "    driver: browser\n    session: web\n    how:\n      url: ${API_BASE}/\n      steps: [open the page]\n    expected:\n      - kind: visible-text\n        value: Welcome\n",
        ),
        case(
            "TC-MAIN-007",
            "MAIN",
            "readonly",
            &format!("    assume: TD_FLAG == yes\n{}", script("touch marker-assume", 0)),
        ),
        case(
            "TC-MAIN-008",
            "MAIN",
            "mutating",
            // the granted switch reaches the child as that variable
            &script("test \"$TD_ALLOW_MUTATING\" = true && touch marker-mutating", 0),
        ),
        case(
            "TC-MAIN-009",
            "MAIN",
            "destructive",
            &format!("    gate: billing\n{}", script("touch marker-destructive", 0)),
        ),
        case(
            "TC-MAIN-010",
            "MAIN",
            "readonly",
            "    driver: script\n    how:\n      run: |\n        (trap '' TERM; exec sleep 100) &\n        echo $! > grandchild.pid\n        echo $$ > leader.pid\n        sleep 100\n      timeout: 1\n    expected:\n      - kind: script-exit\n        value: 0\n",
        ),
        case(
            "TC-MAIN-011",
            "MAIN",
            "readonly",
            &script(
                "test \"$API_BASE\" = \"http://127.0.0.1:$PORT\" && echo \"$WEIRD\" && test -z \"$TD_ALLOW_MUTATING\"",
                0,
            ),
        ),
        case(
            "TC-MAIN-012",
            "MAIN",
            "mutating",
            "    driver: script\n    how:\n      url: ${API_BASE}/orders\n      method: POST\n    expected:\n      - kind: api-status\n        value: 201\n      - kind: api-field\n        value: {path: id, equals: 7}\n",
        ),
        case(
            "TC-MAIN-013",
            "MAIN",
            "readonly",
            "    driver: script\n    how:\n      run: |\n        sleep 100 &\n        echo $! > cancel-grandchild.pid\n        echo $$ > cancel-leader.pid\n        sleep 100\n    expected:\n      - kind: script-exit\n        value: 0\n",
        ),
    ]
    .concat();
    std::fs::write(
        t.join("cases/main.yaml"),
        format!("category: MAIN\ncases:\n{main}"),
    )
    .expect("main");
    let off = [
        case("TC-OFF-001", "OFF", "readonly", &script("exit 1", 0)),
        case(
            "TC-OFF-002",
            "OFF",
            "readonly",
            &script("touch marker-off-002", 0),
        ),
        case("TC-OFF-003", "OFF", "readonly", &script("exit 1", 0)),
        case(
            "TC-OFF-004",
            "OFF",
            "readonly",
            &script("touch marker-off-004", 0),
        ),
        case(
            "TC-OFF-005",
            "OFF",
            "readonly",
            &script("touch marker-remote", 0),
        ),
    ]
    .concat();
    std::fs::write(
        t.join("cases/off.yaml"),
        format!("category: OFF\ncases:\n{off}"),
    )
    .expect("off");
    std::fs::write(
        t.join("cases/stop.yaml"),
        format!(
            "category: STOP\ncases:\n{}",
            case(
                "TC-STOP-001",
                "STOP",
                "readonly",
                &script("touch marker-stop", 0)
            )
        ),
    )
    .expect("stop");
    std::fs::write(
        t.join("cases/dead.yaml"),
        format!(
            "category: DEAD\ncases:\n{}",
            case(
                "TC-DEAD-001",
                "DEAD",
                "readonly",
                &script("touch marker-dead", 0)
            )
        ),
    )
    .expect("dead");
    dir
}

/// Environment variables a run must not inherit from whoever runs the tests.
const CLEAN: [&str; 5] = [
    "HOST",
    "TD_ALLOW_MUTATING",
    "TD_ALLOW_DESTRUCTIVE",
    "TD_ALLOW_BILLING",
    "TD_FLAG",
];

pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) lines: Vec<Value>,
}

impl Run {
    pub(crate) fn summary(&self) -> &Value {
        self.lines.last().expect("a summary line")
    }
    fn result(&self, id: &str) -> &Value {
        self.summary()["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}: {:#?}", self.summary()))
    }
    pub(crate) fn verdict(&self, id: &str) -> &str {
        self.result(id)["verdict"].as_str().expect("verdict")
    }
    pub(crate) fn reason(&self, id: &str) -> &str {
        self.result(id)["reason"].as_str().unwrap_or("")
    }
    pub(crate) fn record(&self, root: &Path) -> PathBuf {
        root.join(self.summary()["record"].as_str().expect("record path"))
    }
}

pub(crate) fn run(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(bin());
    cmd.arg("--root")
        .arg(root)
        .arg("run")
        .arg("--json")
        .args(args);
    for k in CLEAN {
        cmd.env_remove(k);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("run testdeck");
    let lines = common::cli::json_lines(&out.stdout);
    assert_eq!(
        lines.last().map(|l| l["type"].clone()),
        Some(Value::from("summary")),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Run {
        code: out.status.code().expect("exit code"),
        lines,
    }
}

#[test]
fn every_verdict_and_the_expectations() {
    let port = server();
    let ws = workspace(port);
    let root = ws.path();
    let r = run(
        root,
        &[
            "TC-MAIN-001",
            "TC-MAIN-002",
            "TC-MAIN-003",
            "TC-MAIN-004",
            "TC-MAIN-005",
            "TC-MAIN-006",
            "TC-MAIN-007",
            "TC-MAIN-011",
            "STOP",
            "DEAD",
        ],
        &[],
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.verdict("TC-MAIN-001"), "pass");
    assert_eq!(r.verdict("TC-MAIN-002"), "fail");
    assert_eq!(r.reason("TC-MAIN-002"), "exit status 2, expected 0");
    assert_eq!(r.result("TC-MAIN-002")["exitCode"], 2);
    assert_eq!(
        r.verdict("TC-MAIN-003"),
        "pass",
        "{:?}",
        r.reason("TC-MAIN-003")
    );
    assert_eq!(r.verdict("TC-MAIN-004"), "fail");
    assert_eq!(
        r.reason("TC-MAIN-004"),
        "data.items.0.name = \"a\", expected \"b\""
    );
    assert_eq!(r.verdict("TC-MAIN-005"), "fail");
    assert_eq!(r.reason("TC-MAIN-005"), "HTTP status 404, expected 200");
    assert_eq!(r.verdict("TC-MAIN-006"), "not-run");
    assert_eq!(r.reason("TC-MAIN-006"), "needs a person");
    assert_eq!(r.verdict("TC-MAIN-007"), "skipped");
    assert!(r.reason("TC-MAIN-007").contains("assume"));
    assert!(!root.join("marker-assume").exists());
    // vars reach the script as environment variables, never pasted into it
    assert_eq!(
        r.verdict("TC-MAIN-011"),
        "pass",
        "{}",
        r.reason("TC-MAIN-011")
    );
    assert!(!root.join("injected").exists() && !root.join("injected2").exists());
    let out: Vec<&Value> = r
        .lines
        .iter()
        .filter(|l| l["type"] == "output" && l["id"] == "TC-MAIN-011")
        .collect();
    assert_eq!(out[0]["line"], "$(touch injected); touch injected2");
    // probes: inherited (ok), replaced with a stop_if hit, unreachable
    assert_eq!(r.verdict("TC-STOP-001"), "environment-fail");
    assert_eq!(
        r.reason("TC-STOP-001"),
        "status_probe stop_if hit: info.state = \"maintenance\""
    );
    assert!(!root.join("marker-stop").exists());
    assert_eq!(r.verdict("TC-DEAD-001"), "environment-fail");
    assert!(
        r.reason("TC-DEAD-001").contains("unreachable"),
        "{}",
        r.reason("TC-DEAD-001")
    );
    assert!(!root.join("marker-dead").exists());
    let probes: Vec<&Value> = r.lines.iter().filter(|l| l["type"] == "probe").collect();
    assert_eq!(probes.len(), 3);
    assert_eq!(probes[0]["category"], "MAIN");
    assert_eq!(probes[0]["probe"]["ok"], true);
    assert_eq!(
        probes[0]["probe"]["url"],
        format!("http://127.0.0.1:{port}/health")
    );
    // the case-start of a script shows the expanded command
    let start = r
        .lines
        .iter()
        .find(|l| l["type"] == "case-start" && l["id"] == "TC-MAIN-001")
        .expect("case-start");
    assert_eq!(start["command"], "echo hello; exit 0\n");
    // the record parses back and holds the same verdicts; the CSV matches it
    let rec_path = r.record(root);
    let records = testdeck_exec::record::list_records(root);
    assert_eq!(records.len(), 1);
    let rec = records[0].1.as_ref().expect("record parses");
    assert_eq!(records[0].0, rec_path);
    assert_eq!(rec.run_id, r.summary()["runId"].as_str().expect("runId"));
    assert_eq!(rec.host, "127.0.0.1");
    assert_eq!(rec.agent["cli"], "codex");
    assert!(rec.finished_at.is_some());
    assert_eq!(rec.results.len(), 10);
    for c in &rec.results {
        assert_eq!(c.verdict.as_str(), r.verdict(&c.id), "{}", c.id);
    }
    let main = rec
        .results
        .iter()
        .find(|c| c.id == "TC-MAIN-001")
        .expect("case");
    assert_eq!(main.output, ["hello"]);
    let log = root.join(main.log.as_ref().expect("log"));
    assert_eq!(std::fs::read_to_string(log).expect("log"), "hello\n");
    let probes: Vec<(&str, Option<bool>)> = rec
        .probes
        .iter()
        .map(|p| (p.category.as_str(), p.probe.as_ref().map(|x| x.ok)))
        .collect();
    assert_eq!(
        probes,
        [
            ("MAIN", Some(true)),
            ("STOP", Some(false)),
            ("DEAD", Some(false))
        ]
    );
    let csv = std::fs::read_to_string(rec_path.with_extension("csv")).expect("csv");
    let rows = parse_csv(&csv);
    assert_eq!(rows[0][0], "runId");
    assert_eq!(rows.len(), rec.results.len() + 1);
    for (row, c) in rows[1..].iter().zip(&rec.results) {
        assert_eq!(row[0], rec.run_id);
        assert_eq!(row[1], c.id);
        assert_eq!(row[2], c.category);
        assert_eq!(row[3], c.title);
        assert_eq!(row[4], c.risk.as_str());
        assert_eq!(row[5], c.verdict.as_str());
        assert_eq!(row[6], c.reason.clone().unwrap_or_default());
        assert_eq!(row[8], c.duration_ms.to_string());
        assert_eq!(
            row[9],
            c.exit_code.map(|e| e.to_string()).unwrap_or_default()
        );
    }
    // a person's verdict for the case that needs one goes into the same record
    let judged = testdeck_exec::record::judge_file(
        root,
        &rec_path,
        "TC-MAIN-006",
        testdeck_exec::record::Verdict::Pass,
        Some("welcome text seen".into()),
    )
    .expect("judge");
    assert!(judged);
    let back = testdeck_exec::record::read_record(root, &rec_path).expect("record");
    let c = back
        .results
        .iter()
        .find(|c| c.id == "TC-MAIN-006")
        .expect("case");
    assert_eq!(c.verdict.as_str(), "pass");
    assert_eq!(c.judged_by.as_deref(), Some("person"));
    assert_eq!(c.note.as_deref(), Some("welcome text seen"));
    let csv = std::fs::read_to_string(rec_path.with_extension("csv")).expect("csv");
    assert!(
        csv.contains(",TC-MAIN-006,MAIN,title of TC-MAIN-006,readonly,pass,judged by a person,")
    );
    // `runs` lists the record with its counts
    let out = common::cli::at(root)
        .args(["runs", "--json", "--case", "TC-MAIN-002"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["source"], "catalog");
    assert_eq!(runs[0]["verdict"], "fail");
    assert_eq!(runs[0]["counts"]["pass"], 4);
    assert_eq!(runs[0]["counts"]["fail"], 3);
    assert_eq!(runs[0]["counts"]["environment-fail"], 2);
    assert_eq!(runs[0]["counts"]["skipped"], 1);
    assert_eq!(runs[0]["counts"]["not-run"], 0);
    // --failed picks the cases whose latest verdict failed
    let again = run(root, &["--failed"], &[]);
    let ids: Vec<&str> = again.summary()["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "TC-MAIN-002",
            "TC-MAIN-004",
            "TC-MAIN-005",
            "TC-STOP-001",
            "TC-DEAD-001"
        ]
    );
}

/// RFC 4180, enough for the test.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            // records end in \r\n (RFC 4180)
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (_, c) => cell.push(c),
        }
    }
    rows
}

#[test]
fn run_together_with_and_without_continue_on_fail() {
    let ws = workspace(server());
    let root = ws.path();
    // naming one member selects the whole group, in `ids` order
    let r = run(root, &["TC-OFF-002", "TC-OFF-004"], &[]);
    assert_eq!(r.code, 1);
    let ids: Vec<&str> = r.summary()["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|x| x["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        ["TC-OFF-001", "TC-OFF-002", "TC-OFF-003", "TC-OFF-004"]
    );
    assert_eq!(r.verdict("TC-OFF-001"), "fail");
    assert_eq!(r.verdict("TC-OFF-002"), "not-run");
    assert_eq!(
        r.reason("TC-OFF-002"),
        "run_together: TC-OFF-001 failed before it"
    );
    assert!(!root.join("marker-off-002").exists());
    assert_eq!(r.verdict("TC-OFF-003"), "fail");
    assert_eq!(r.verdict("TC-OFF-004"), "pass");
    assert!(root.join("marker-off-004").exists());
    // the category has `status_probe: false`: no probe was fetched
    let probe = r
        .lines
        .iter()
        .find(|l| l["type"] == "probe")
        .expect("probe");
    assert_eq!(probe["probe"], Value::Null);
}

#[test]
fn a_timeout_ends_the_whole_group() {
    let ws = workspace(server());
    let root = ws.path();
    let t = Instant::now();
    let r = run(root, &["TC-MAIN-010"], &[]);
    assert_eq!(r.verdict("TC-MAIN-010"), "fail");
    assert_eq!(r.reason("TC-MAIN-010"), "timeout");
    // 1 s timeout, then the grandchild ignores SIGTERM: SIGKILL 3 s later
    assert!(t.elapsed() >= Duration::from_secs(4), "{:?}", t.elapsed());
    let gc = std::fs::read_to_string(root.join("grandchild.pid")).expect("grandchild pid");
    let leader = std::fs::read_to_string(root.join("leader.pid")).expect("leader pid");
    assert!(!signalable(&gc), "grandchild {gc} outlived its case");
    assert!(!signalable(&leader), "leader {leader} outlived its case");
}

#[test]
fn cancel_ends_the_running_case_and_the_rest() {
    let ws = workspace(server());
    let root = ws.path();
    let mut cmd = Command::new(bin());
    cmd.arg("--root")
        .arg(root)
        .args(["run", "--json", "TC-MAIN-013", "TC-OFF-005"])
        .stdout(Stdio::piped());
    for k in CLEAN {
        cmd.env_remove(k);
    }
    let mut child = cmd.spawn().expect("spawn");
    let pidfile = root.join("cancel-grandchild.pid");
    let t = Instant::now();
    while !pidfile.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the case never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    let code = child.wait().expect("wait").code();
    assert_eq!(code, Some(1));
    let summary: Value = serde_json::from_str(out.lines().last().expect("summary")).expect("json");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["results"][0]["id"], "TC-MAIN-013");
    assert_eq!(summary["results"][0]["verdict"], "not-run");
    assert_eq!(summary["results"][0]["reason"], "cancelled");
    // the case after it never started
    assert_eq!(summary["results"][1]["id"], "TC-OFF-005");
    assert_eq!(summary["results"][1]["verdict"], "not-run");
    assert!(!root.join("marker-remote").exists());
    let gc = std::fs::read_to_string(&pidfile).expect("pid");
    let leader = std::fs::read_to_string(root.join("cancel-leader.pid")).expect("pid");
    assert!(!signalable(&gc) && !signalable(&leader));
    let rec = testdeck_exec::record::read_record(
        root,
        &root.join(summary["record"].as_str().expect("record")),
    )
    .expect("record");
    assert_eq!(rec.results.len(), 2);
}

#[test]
fn record_names_are_unique_within_a_second() {
    use testdeck_exec::record::{RecordWriter, RunRecord};
    let dir = crate::common::fs::scratch_dir();
    let new = || {
        RunRecord::new(
            String::new(),
            "same".into(),
            "127.0.0.1".into(),
            testdeck_exec::Risk::Readonly,
        )
    };
    // the same random suffix twice in the same second: the second must move on
    loop {
        fastrand::seed(7);
        let a = RecordWriter::create(dir.path(), new()).expect("first");
        fastrand::seed(7);
        let b = RecordWriter::create(dir.path(), new()).expect("second");
        assert_ne!(a.path, b.path);
        assert_ne!(a.record.run_id, b.record.run_id);
        if a.record.run_id[..16] == b.record.run_id[..16] {
            break;
        }
    }
    let records = testdeck_exec::record::list_records(dir.path());
    assert!(records.len() >= 2);
    for (path, r) in &records {
        let r = r.as_ref().expect("parses");
        assert_eq!(
            path.file_stem().map(|s| s.to_string_lossy().into_owned()),
            Some(r.run_id.clone())
        );
    }
}
