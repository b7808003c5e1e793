//! The authorization and network boundary of issue 12 (findings 1 and 5), headless:
//! a catalog cannot authorize itself, a `run_together` group runs only whole,
//! nothing is sent to a remote HOST before the policy allows it, redirects and
//! proxies are never followed, and an answer that cannot be read whole is a
//! failed probe. Real `testdeck run` processes, real `sh`, real HTTP servers on
//! 127.0.0.1 and 127.0.0.2 started here.

use crate::common;
use common::cli::bin;

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use testdeck_exec::http;

/// What a test server does with one request.
enum Reply {
    /// Write these bytes and close.
    Send(Vec<u8>),
    /// Write these bytes, then hold the connection open without a word more.
    Stall(Vec<u8>),
}

/// A real HTTP server on `addr` that counts every request it reads.
struct Server {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Server {
    fn start(addr: &str, reply: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind(format!("{addr}:0")).expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        let reply = Arc::new(reply);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let h = h.clone();
                let reply = reply.clone();
                std::thread::spawn(move || serve(stream, &h, &*reply));
            }
        });
        Server { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

fn serve(mut stream: TcpStream, hits: &AtomicUsize, reply: &dyn Fn(&str) -> Reply) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() || first.is_empty() {
        return;
    }
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
    }
    hits.fetch_add(1, Ordering::SeqCst);
    let path = first.split_whitespace().nth(1).unwrap_or("").to_owned();
    match reply(&path) {
        Reply::Send(b) => {
            let _ = stream.write_all(&b);
        }
        Reply::Stall(b) => {
            let _ = stream.write_all(&b);
            let _ = stream.flush();
            // the test is long over before this ends; the client must not wait for it
            std::thread::sleep(Duration::from_secs(300));
        }
    }
}

fn answer(status: u16, extra: &str, body: &str) -> Reply {
    Reply::Send(
        format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

fn ok_json() -> Server {
    Server::start("127.0.0.1", |_| answer(200, "", r#"{"status":"ok"}"#))
}

// ---- HTTP: no redirects, no proxy, whole answers only --------------------------

#[test]
fn a_redirect_is_the_answer_and_the_second_host_sees_nothing() {
    let second = Server::start("127.0.0.2", |_| answer(200, "", r#"{"status":"ok"}"#));
    let to = format!("http://127.0.0.2:{}/health", second.port);
    let first = Server::start("127.0.0.1", move |_| {
        answer(302, &format!("Location: {to}\r\n"), "")
    });
    let url = format!("http://127.0.0.1:{}/health", first.port);
    let a = http::fetch("GET", &url, Duration::from_secs(20)).expect("an answer");
    assert_eq!(a.status, 302);
    let p = http::probe(&url, &[]);
    assert_eq!(p.status, Some(302), "{p:?}");
    assert_eq!(first.hits(), 2);
    assert_eq!(second.hits(), 0, "the redirect was followed");
}

#[test]
fn a_body_over_the_cap_is_a_failed_probe() {
    let big = http::MAX_BODY as usize + 1024;
    let s = Server::start("127.0.0.1", move |_| {
        let mut b = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {big}\r\nConnection: close\r\n\r\n"
        )
        .into_bytes();
        b.resize(b.len() + big, b' ');
        Reply::Send(b)
    });
    let url = format!("http://127.0.0.1:{}/health", s.port);
    let p = http::probe(&url, &[]);
    assert!(!p.ok, "{p:?}");
    assert!(
        p.reason
            .as_deref()
            .is_some_and(|r| r.contains("could not be read")),
        "{p:?}"
    );
    assert!(matches!(
        http::fetch("GET", &url, Duration::from_secs(20)),
        Err(http::FetchError::Body(_))
    ));
}

#[test]
fn a_server_that_never_finishes_is_a_failed_probe() {
    // headers and half a body, then silence; and a server that never answers at all
    let half = Server::start("127.0.0.1", |_| {
        Reply::Stall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"status\":"
                .to_vec(),
        )
    });
    let mute = Server::start("127.0.0.1", |_| Reply::Stall(Vec::new()));
    for s in [&half, &mute] {
        let url = format!("http://127.0.0.1:{}/health", s.port);
        let p = http::probe_within(&url, &[], Duration::from_secs(2));
        assert!(!p.ok, "{p:?}");
        assert!(p.reason.is_some(), "{p:?}");
    }
}

// ---- the catalog fixture ---------------------------------------------------------

fn case(id: &str, cat: &str, risk: &str, extra: &str) -> String {
    let tag = if risk == "readonly" { "smoke" } else { "full" };
    format!(
        "  - id: {id}\n    category: {cat}\n    title: title of {id}\n    what: something observable\n    lifecycle: active\n    tag: {tag}\n    risk: {risk}\n{extra}"
    )
}

fn script(run: &str) -> String {
    format!(
        "    driver: script\n    how:\n      run: {run}\n    expected:\n      - kind: script-exit\n        value: 0\n"
    )
}

/// A catalog with a gated destructive case, a run_together pair (mutating +
/// destructive) and a category that talks HTTP; `vars` and `local` are added.
fn workspace(vars: &str, local: &str) -> tempfile::TempDir {
    let dir = crate::common::fs::scratch_dir();
    let t = dir.path().join(".pouch/tester");
    std::fs::create_dir_all(t.join("cases")).expect("mkdir");
    let catalog = format!(
        "categories:\n  - id: OPS\n    title: ops\n    status_probe: false\n  - id: NET\n    title: net\nrisks: [readonly, mutating, destructive]\ndefault_max_risk: destructive\nvars:\n  API: http://${{HOST}}\n{vars}authorize:\n  mutating: TD_ALLOW_MUTATING\n  destructive: TD_ALLOW_DESTRUCTIVE\ngates:\n  wipe: TD_ALLOW_WIPE\nid_pattern: \"TC-[A-Z]+-[0-9]{{3}}\"\nrun_together:\n  - ids: [TC-OPS-002, TC-OPS-003]\nstatus_probe:\n  url: ${{API}}/health\n"
    );
    std::fs::write(t.join("catalog.yaml"), catalog).expect("catalog");
    if !local.is_empty() {
        std::fs::write(t.join("local.yaml"), local).expect("local");
    }
    let ops = [
        case(
            "TC-OPS-001",
            "OPS",
            "destructive",
            &format!("    gate: wipe\n{}", script("touch wiped")),
        ),
        case("TC-OPS-002", "OPS", "mutating", &script("touch group-1")),
        case("TC-OPS-003", "OPS", "destructive", &script("touch group-2")),
    ];
    std::fs::write(
        t.join("cases/ops.yaml"),
        format!("category: OPS\ncases:\n{}", ops.concat()),
    )
    .expect("ops");
    let net = [
        case(
            "TC-NET-001",
            "NET",
            "readonly",
            "    driver: script\n    how:\n      url: ${API}/health\n    expected:\n      - kind: api-status\n        value: 200\n",
        ),
        case("TC-NET-002", "NET", "readonly", &script("touch ran-net")),
    ];
    std::fs::write(
        t.join("cases/net.yaml"),
        format!("category: NET\ncases:\n{}", net.concat()),
    )
    .expect("net");
    dir
}

/// `testdeck` with a clean environment: only PATH (and `env`).
fn testdeck(root: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, Vec<Value>) {
    let mut cmd = Command::new(bin());
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env.iter().copied())
        .arg("--root")
        .arg(root)
        .args(args)
        .arg("--json");
    let out = cmd.output().expect("run testdeck");
    let text = String::from_utf8_lossy(&out.stdout);
    // one JSON document (validate) or JSON Lines (run)
    let lines = match serde_json::from_str::<Value>(&text) {
        Ok(doc) => vec![doc],
        Err(_) => common::cli::json_lines(&out.stdout),
    };
    (out.status.code().expect("exit code"), lines)
}

fn result<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .last()
        .and_then(|s| s["results"].as_array())
        .and_then(|rs| rs.iter().find(|r| r["id"] == id))
        .unwrap_or_else(|| panic!("no result for {id}: {lines:#?}"))
}

fn verdict<'a>(lines: &'a [Value], id: &str) -> (&'a str, &'a str) {
    let r = result(lines, id);
    (
        r["verdict"].as_str().unwrap_or(""),
        r["reason"].as_str().unwrap_or(""),
    )
}

/// 1-based line of the first line of `text` that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> u64 {
    text.lines()
        .position(|l| l.starts_with(prefix))
        .map(|i| i as u64 + 1)
        .expect("line")
}

// ---- finding 1: the catalog authorizes itself ------------------------------------

const SELF_AUTHORIZING: &str =
    "  TD_ALLOW_DESTRUCTIVE: \"true\"\n  TD_ALLOW_MUTATING: \"true\"\n  TD_ALLOW_WIPE: \"true\"\n";

#[test]
fn catalog_vars_never_authorize_and_validate_says_where() {
    let ws = workspace(SELF_AUTHORIZING, "");
    let root = ws.path();
    let (_, lines) = testdeck(root, &["run", "TC-OPS-001", "TC-OPS-002"], &[]);
    for id in ["TC-OPS-001", "TC-OPS-002", "TC-OPS-003"] {
        let (v, r) = verdict(&lines, id);
        assert_eq!(v, "skipped", "{id}: {r}");
    }
    assert!(
        verdict(&lines, "TC-OPS-001")
            .1
            .contains("--authorize destructive")
    );
    assert!(
        !root.join("wiped").exists(),
        "the catalog authorized itself"
    );
    assert!(!root.join("group-1").exists() && !root.join("group-2").exists());
    // the same switch from the environment or local.yaml does authorize
    let (_, lines) = testdeck(
        root,
        &["run", "TC-OPS-001"],
        &[("TD_ALLOW_DESTRUCTIVE", "true"), ("TD_ALLOW_WIPE", "true")],
    );
    assert_eq!(verdict(&lines, "TC-OPS-001").0, "pass");
    assert!(root.join("wiped").exists());

    let (code, lines) = testdeck(root, &["validate"], &[]);
    assert_eq!(code, 1);
    let text = std::fs::read_to_string(root.join(".pouch/tester/catalog.yaml")).expect("read");
    let found: Vec<(u64, u64, String)> = lines[0]["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["rule"] == "authorize-in-catalog")
        .map(|p| {
            assert_eq!(p["file"], ".pouch/tester/catalog.yaml");
            assert_eq!(p["severity"], "error");
            (
                p["line"].as_u64().expect("line"),
                p["column"].as_u64().expect("column"),
                p["message"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let want: Vec<u64> = ["TD_ALLOW_DESTRUCTIVE", "TD_ALLOW_MUTATING", "TD_ALLOW_WIPE"]
        .iter()
        .map(|v| line_of(&text, &format!("  {v}:")))
        .collect();
    assert_eq!(
        found.iter().map(|f| f.0).collect::<Vec<_>>(),
        want,
        "{found:?}"
    );
    // located at the value, as every var problem is
    let cols: Vec<u64> = ["TD_ALLOW_DESTRUCTIVE", "TD_ALLOW_MUTATING", "TD_ALLOW_WIPE"]
        .iter()
        .map(|v| format!("  {v}: ").len() as u64 + 1)
        .collect();
    assert_eq!(found.iter().map(|f| f.1).collect::<Vec<_>>(), cols);
    assert!(found[0].2.contains("TD_ALLOW_DESTRUCTIVE"));
}

// ---- a run_together group runs only whole -----------------------------------------

#[test]
fn a_group_with_one_member_refused_runs_none() {
    let ws = workspace("", "");
    let root = ws.path();
    // destructive is authorized, mutating is not: the destructive member must not
    // run without its partner
    let (_, lines) = testdeck(
        root,
        &["run", "TC-OPS-003", "--authorize", "destructive"],
        &[],
    );
    let (v2, r2) = verdict(&lines, "TC-OPS-002");
    let (v3, r3) = verdict(&lines, "TC-OPS-003");
    assert_eq!((v2, v3), ("skipped", "skipped"), "{r2} / {r3}");
    assert!(r3.contains("run_together: TC-OPS-002 will not run"), "{r3}");
    assert!(!root.join("group-1").exists() && !root.join("group-2").exists());
    // both authorized (flag and local.yaml): both run
    std::fs::write(
        root.join(".pouch/tester/local.yaml"),
        "TD_ALLOW_MUTATING: \"true\"\n",
    )
    .expect("local");
    let (_, lines) = testdeck(
        root,
        &["run", "TC-OPS-003", "--authorize", "destructive"],
        &[],
    );
    assert_eq!(verdict(&lines, "TC-OPS-002").0, "pass");
    assert_eq!(verdict(&lines, "TC-OPS-003").0, "pass");
    assert!(root.join("group-1").exists() && root.join("group-2").exists());
}

// ---- finding 5: no network before policy ------------------------------------------

/// HOST for a server on 127.0.0.2 that the classifier calls remote: an
/// IPv4-mapped IPv6 address is not `::1` and not `127.0.0.0/8` as written, yet
/// the kernel delivers it to 127.0.0.2 — so the test server really sees every
/// packet that would have left for a remote host, and nothing leaves the machine.
fn remote_host(port: u16) -> String {
    format!("[::ffff:127.0.0.2]:{port}")
}

#[test]
fn a_remote_host_sees_no_request_until_it_is_allowed() {
    let s = Server::start("127.0.0.2", |_| answer(200, "", r#"{"status":"ok"}"#));
    assert!(!testdeck_core::workspace::host::is_loopback_host(
        &remote_host(s.port)
    ));
    let ws = workspace("", &format!("HOST: \"{}\"\n", remote_host(s.port)));
    let root = ws.path();
    let (_, lines) = testdeck(root, &["run", "NET"], &[]);
    for id in ["TC-NET-001", "TC-NET-002"] {
        let (v, r) = verdict(&lines, id);
        assert_eq!(v, "skipped", "{id}");
        assert!(r.contains("--allow-remote"), "{r}");
    }
    assert!(
        !lines.iter().any(|l| l["type"] == "probe"),
        "a probe was sent for a refused category: {lines:#?}"
    );
    assert_eq!(
        s.hits(),
        0,
        "requests reached the remote HOST before policy"
    );
    assert!(!root.join("ran-net").exists());
    // allowed: the probe and the API check are sent, the readonly case runs
    let (_, lines) = testdeck(root, &["run", "NET", "--allow-remote"], &[]);
    assert_eq!(verdict(&lines, "TC-NET-001").0, "pass", "{lines:#?}");
    assert_eq!(verdict(&lines, "TC-NET-002").0, "pass");
    assert!(root.join("ran-net").exists());
    assert_eq!(s.hits(), 2, "one probe, one API check");
}

#[test]
fn a_host_that_is_not_host_port_is_located_and_treated_as_remote() {
    let s = ok_json();
    let ws = workspace(
        "",
        &format!("# local\nHOST: \"127.0.0.1:{}@some.host\"\n", s.port),
    );
    let root = ws.path();
    let (_, lines) = testdeck(root, &["validate"], &[]);
    let p = lines[0]["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .find(|p| p["rule"] == "host-invalid")
        .unwrap_or_else(|| panic!("no host-invalid: {lines:#?}"))
        .clone();
    assert_eq!(p["file"], ".pouch/tester/local.yaml");
    // line 2, at the value
    assert_eq!(
        (p["line"].as_u64(), p["column"].as_u64()),
        (Some(2), Some("HOST: ".len() as u64 + 1))
    );
    assert_eq!(p["severity"], "error");
    let (_, lines) = testdeck(root, &["run", "NET"], &[]);
    assert!(verdict(&lines, "TC-NET-001").1.contains("--allow-remote"));
    assert_eq!(s.hits(), 0);
    // select says what launching will need, from the same classifier
    let (_, doc) = testdeck(root, &["select", "NET"], &[]);
    assert_eq!(doc[0]["host"]["loopback"], false);
    assert!(doc[0]["host"]["problem"].is_string(), "{doc:#?}");
}

#[test]
fn proxy_variables_are_never_used() {
    let s = ok_json();
    let proxy = Server::start("127.0.0.1", |_| answer(502, "", "{}"));
    let p = format!("http://127.0.0.1:{}", proxy.port);
    let ws = workspace("", &format!("HOST: \"127.0.0.1:{}\"\n", s.port));
    let root = ws.path();
    let env: Vec<(&str, &str)> = [
        "ALL_PROXY",
        "all_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
    ]
    .iter()
    .map(|k| (*k, p.as_str()))
    .collect();
    let (_, lines) = testdeck(root, &["run", "TC-NET-001"], &env);
    assert_eq!(verdict(&lines, "TC-NET-001").0, "pass", "{lines:#?}");
    assert_eq!(
        proxy.hits(),
        0,
        "a proxy variable carried a loopback request"
    );
    assert_eq!(s.hits(), 2);
}
