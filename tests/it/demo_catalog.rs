//! The demo's tester catalog uses every field of seed 001, and its `script`
//! cases' `how.run` behave as their titles promise under a plain `sh`.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

fn yaml(rel: &str) -> Value {
    let text = std::fs::read_to_string(demo().join(rel)).expect("read yaml");
    serde_saphyr::from_str(&text).expect("valid YAML")
}

fn all_cases() -> Vec<Value> {
    ["cli", "api", "web", "app"]
        .iter()
        .flat_map(|c| {
            yaml(&format!(".pouch/tester/cases/{c}.yaml"))["cases"]
                .as_array()
                .expect("cases")
                .clone()
        })
        .collect()
}

fn values(cases: &[Value], key: &str) -> BTreeSet<String> {
    cases
        .iter()
        .map(|c| c[key].as_str().unwrap_or("-").to_owned())
        .collect()
}

#[test]
fn catalog_yaml_uses_every_field() {
    let cat = yaml(".pouch/tester/catalog.yaml");
    for key in [
        "categories",
        "risks",
        "default_max_risk",
        "vars",
        "artifacts",
        "authorize",
        "gates",
        "sessions",
        "id_pattern",
        "run_together",
        "status_probe",
        "agent",
        "execution",
    ] {
        assert!(!cat[key].is_null(), "{key}");
    }
    let cats = cat["categories"].as_array().expect("categories");
    assert!(cats.iter().all(|c| c["title"].is_string()));
    assert!(cats.iter().any(|c| c["status_probe"] == Value::Bool(false)));
    assert!(cats.iter().any(|c| c["status_probe"].is_object()));
    assert!(cats.iter().any(|c| c.get("status_probe").is_none()));
    assert_eq!(cat["vars"]["API_BASE"], "http://${HOST}:8095");
    let groups = cat["run_together"].as_array().expect("run_together");
    assert!(groups.iter().any(|g| g["continue_on_fail"] == true));
    assert!(groups.iter().any(|g| g.get("continue_on_fail").is_none()));
    let kinds: BTreeSet<_> = cat["sessions"]
        .as_object()
        .expect("sessions")
        .values()
        .map(|s| {
            (
                s["kind"].as_str().expect("kind"),
                s["reuse"].as_str().expect("reuse"),
            )
        })
        .collect();
    assert_eq!(kinds, [("browser", "run"), ("mobile", "persist")].into());
    assert!(cat["artifacts"]["android"]["package"].is_string());
    assert!(cat["artifacts"]["ios"]["bundle_id"].is_string());
    let local = yaml(".pouch/tester/local.yaml");
    assert_eq!(local["HOST"], "127.0.0.1");
    assert!(local["agent"].is_object());
    assert!(demo().join(".pouch/tester/local.yaml.example").is_file());
}

#[test]
fn cases_cover_every_value() {
    let cases = all_cases();
    let set = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<BTreeSet<_>>();
    assert_eq!(
        values(&cases, "lifecycle"),
        set(&["active", "pending", "retired"])
    );
    assert_eq!(values(&cases, "tag"), set(&["full", "slow", "smoke"]));
    assert_eq!(
        values(&cases, "risk"),
        set(&["destructive", "mutating", "readonly"])
    );
    assert_eq!(
        values(&cases, "driver"),
        set(&["-", "browser", "mobile", "script"])
    );
    assert_eq!(
        values(&cases, "automation"),
        set(&["-", "assisted", "manual"])
    );
    let pairs: BTreeSet<(String, String)> = cases
        .iter()
        .map(|c| {
            (
                c["driver"].as_str().unwrap_or("-").to_owned(),
                c["automation"].as_str().unwrap_or("automated").to_owned(),
            )
        })
        .collect();
    for (d, a) in [
        ("script", "automated"),
        ("script", "assisted"),
        ("browser", "automated"),
        ("browser", "assisted"),
        ("mobile", "automated"),
        ("mobile", "assisted"),
        ("-", "manual"),
    ] {
        assert!(pairs.contains(&(d.to_owned(), a.to_owned())), "{d}/{a}");
    }
    let kinds: BTreeSet<String> = cases
        .iter()
        .flat_map(|c| c["expected"].as_array().expect("expected").clone())
        .map(|e| e["kind"].as_str().expect("kind").to_owned())
        .collect();
    assert_eq!(
        kinds,
        set(&[
            "api-field",
            "api-status",
            "interaction",
            "script-exit",
            "url",
            "visible-text"
        ])
    );
    for key in ["gate", "assume", "maps_to", "setup", "teardown", "notes"] {
        assert!(cases.iter().any(|c| c.get(key).is_some()), "{key}");
    }
    for c in cases.iter().filter(|c| c["automation"] == "assisted") {
        let steps = c["how"]["steps"].as_array().expect("steps");
        assert!(
            steps
                .iter()
                .any(|s| s.as_str().is_some_and(|s| s.starts_with("[人工]"))),
            "{}",
            c["id"]
        );
    }
    // smoke only with readonly, a gate never with readonly
    for c in &cases {
        if c["tag"] == "smoke" {
            assert_eq!(c["risk"], "readonly", "{}", c["id"]);
        }
        if c.get("gate").is_some() {
            assert_ne!(c["risk"], "readonly", "{}", c["id"]);
        }
    }
}

/// `how.run` with the catalog's vars expanded for HOST 127.0.0.1, as the executor would.
fn command_of(id: &str) -> (String, Option<u64>) {
    let cases = all_cases();
    let c = cases.iter().find(|c| c["id"] == id).expect("case");
    let mut run = c["how"]["run"].as_str().expect("how.run").to_owned();
    let vars = yaml(".pouch/tester/catalog.yaml")["vars"].clone();
    for _ in 0..3 {
        for (k, v) in vars.as_object().expect("vars") {
            run = run.replace(&format!("${{{k}}}"), v.as_str().expect("string var"));
        }
        run = run.replace("${HOST}", "127.0.0.1");
    }
    (run, c["how"]["timeout"].as_u64())
}

fn sh(root: &Path, id: &str) -> std::process::Output {
    let (run, _) = command_of(id);
    Command::new("sh")
        .args(["-c", &run])
        .current_dir(root)
        .output()
        .expect("sh")
}

#[test]
fn script_cases_run_under_plain_sh() {
    let tmp = crate::common::fs::scratch_dir();
    let root = tmp.path();
    testdeck_core::workspace::demo::write_demo(root).expect("copy demo");

    assert!(sh(root, "TC-CLI-001").status.success());
    let out = sh(root, "TC-CLI-002");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "runner ok, API_BASE=http://127.0.0.1:8095"
    );
    let out = sh(root, "TC-CLI-003");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("indexing demo-notes batch"))
            .count(),
        5
    );
    assert_eq!(stdout.lines().last(), Some("done"));
    let out = sh(root, "TC-CLI-004");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the unregistered case makes it fail"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("not registered"));
    // 006 writes, 007 clears: the run_together pair
    assert!(sh(root, "TC-CLI-006").status.success());
    assert!(root.join("tmp/exports/probe.txt").is_file());
    assert!(sh(root, "TC-CLI-007").status.success());
    assert!(!root.join("tmp/exports").exists());
    assert!(sh(root, "TC-CLI-010").status.success());
}

#[test]
fn the_timeout_case_outlives_its_timeout() {
    let (run, timeout) = command_of("TC-CLI-005");
    let timeout = Duration::from_secs(timeout.expect("how.timeout"));
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &run]).stdout(Stdio::null());
    // its own process group, so the `sleep` it forks ends with it
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().expect("sh");
    let start = Instant::now();
    while start.elapsed() < timeout + Duration::from_millis(500) {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "finished before how.timeout"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    #[cfg(unix)]
    {
        let group = format!("-{}", child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
    }
    let _ = child.kill();
    child.wait().expect("reap");
}
