//! Random sequences of what a person and their runner do to a workspace (test
//! files written, renamed and deleted, folders moved in and out, runs starting,
//! ending and deleted, plan and catalog edits), each step with the paths a
//! watcher reports for it: what the incremental models (the core's, the
//! cockpit's) are checked against a fresh load with.

use std::fmt::Write as _;
use std::path::Path;

const DOMAINS: [&str; 2] = ["shop", "auth"];
const SUITES: [&str; 3] = ["backend/cart", "backend/login", "e2e/checkout"];
const CASES: [&str; 4] = ["add", "remove", "refund", "retry"];

/// Write `text` to `rel` below `root`, its folders made.
pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

/// The workspace's random actor.
pub struct World {
    rng: fastrand::Rng,
    /// Run folders made so far (a run's id grows with each).
    runs: u32,
}

impl World {
    /// A world whose choices follow `seed`.
    pub fn new(seed: u64) -> World {
        World {
            rng: fastrand::Rng::with_seed(seed),
            runs: 0,
        }
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.rng.usize(..from.len())]
    }

    fn case_file(&mut self) -> String {
        let ext = if self.rng.bool() {
            "test.ts"
        } else {
            "spec.ts"
        };
        format!(
            "tests/{}/{}/{}.{ext}",
            self.pick(&DOMAINS),
            self.pick(&SUITES),
            self.pick(&CASES)
        )
    }

    fn case_log(&mut self) -> String {
        format!(
            "tests/logs/{}/{}/{}",
            self.pick(&DOMAINS),
            self.pick(&SUITES),
            self.pick(&CASES)
        )
    }

    /// Files and folders below `dir` (relative to root), folders first.
    fn below(root: &Path, dir: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_owned()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(root.join(&d)) else {
                continue;
            };
            for e in rd.flatten() {
                let rel = format!("{d}/{}", e.file_name().to_string_lossy());
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(rel.clone());
                }
                out.push(rel);
            }
        }
        out.sort();
        out
    }

    /// The test files written so far.
    fn case_files(root: &Path) -> Vec<String> {
        Self::below(root, "tests")
            .into_iter()
            .filter(|p| {
                Path::new(p).extension().is_some_and(|e| e == "ts") && !p.starts_with("tests/logs")
            })
            .collect()
    }

    /// Do one thing to the workspace; return the paths a watcher reports for it.
    #[expect(
        clippy::too_many_lines,
        reason = "one arm per kind of random change, each a few lines"
    )]
    pub fn step(&mut self, root: &Path) -> (String, Vec<String>) {
        match self.rng.u8(..12) {
            0 | 1 => {
                let f = self.case_file();
                write(root, &f, "// a case\n");
                (format!("write {f}"), vec![f])
            }
            2 => {
                let files = Self::case_files(root);
                let Some(f) = files.get(self.rng.usize(..files.len().max(1))) else {
                    return ("nothing to delete".into(), Vec::new());
                };
                std::fs::remove_file(root.join(f)).expect("rm");
                (format!("delete {f}"), vec![f.clone()])
            }
            3 => {
                // a renamed case file: the old path and the new one
                let files = Self::case_files(root);
                let Some(from) = files.get(self.rng.usize(..files.len().max(1))).cloned() else {
                    return ("nothing to rename".into(), Vec::new());
                };
                let to = self.case_file();
                if root.join(&to).exists() {
                    return ("rename onto a case: skipped".into(), Vec::new());
                }
                std::fs::create_dir_all(root.join(&to).parent().expect("parent")).expect("mkdir");
                std::fs::rename(root.join(&from), root.join(&to)).expect("mv");
                (format!("rename {from} {to}"), vec![from, to])
            }
            4 => {
                // a folder of cases moved in from outside, or out of the tree
                let dir = format!(
                    "tests/{}/{}",
                    self.pick(&DOMAINS),
                    self.pick(&["backend", "e2e"])
                );
                if root.join(&dir).is_dir() {
                    std::fs::rename(
                        root.join(&dir),
                        root.join(format!("moved-out-{}", self.runs)),
                    )
                    .expect("mv");
                    self.runs += 1;
                    (format!("move out {dir}"), vec![dir])
                } else {
                    write(root, "incoming/cart/moved.test.ts", "");
                    write(root, "incoming/cart/kept.spec.ts", "");
                    std::fs::create_dir_all(root.join(&dir).parent().expect("parent"))
                        .expect("mkdir");
                    std::fs::rename(root.join("incoming"), root.join(&dir)).expect("mv");
                    (format!("move in {dir}"), vec![dir])
                }
            }
            5 | 6 => {
                // a run starts: its folder, then its timeline
                self.runs += 1;
                let run = format!(
                    "{}/20260310-1200{:02}-{:03}",
                    self.case_log(),
                    self.runs / 1000 % 60,
                    self.runs % 1000
                );
                let mut paths = vec![run.clone()];
                write(
                    root,
                    &format!("{run}/timeline.jsonl"),
                    "{\"type\":\"step\",\"name\":\"a\"}\n",
                );
                paths.push(format!("{run}/timeline.jsonl"));
                if self.rng.bool() {
                    write(root, &format!("{run}/runtime-events.jsonl"), "");
                    paths.push(format!("{run}/runtime-events.jsonl"));
                }
                (format!("start {run}"), paths)
            }
            7 | 8 => {
                // a run in progress ends: artifacts.json, then meta.json (passed,
                // failed or unreadable)
                let open: Vec<String> = Self::below(root, "tests/logs")
                    .into_iter()
                    .filter(|p| p.ends_with("/timeline.jsonl"))
                    .map(|p| p.trim_end_matches("/timeline.jsonl").to_owned())
                    .filter(|run| !root.join(run).join("meta.json").exists())
                    .collect();
                let Some(run) = open.get(self.rng.usize(..open.len().max(1))).cloned() else {
                    return ("no run to end".into(), Vec::new());
                };
                let meta = match self.rng.u8(..3) {
                    0 => {
                        r#"{"schemaVersion":4,"status":"passed","startedAt":"2026-03-10T12:00:00Z","finishedAt":"2026-03-10T12:00:01Z","stats":{"durationMs":1000}}"#
                    }
                    1 => r#"{"schemaVersion":4,"status":"failed","stats":{"durationMs":20}}"#,
                    _ => "{ not json",
                };
                write(root, &format!("{run}/artifacts.json"), "[]");
                write(root, &format!("{run}/meta.json"), meta);
                (
                    format!("end {run}"),
                    vec![format!("{run}/artifacts.json"), format!("{run}/meta.json")],
                )
            }
            9 => {
                // a run folder or a case's logs deleted
                let logs: Vec<String> = Self::below(root, "tests/logs")
                    .into_iter()
                    .filter(|p| root.join(p).is_dir())
                    .collect();
                let Some(dir) = logs.get(self.rng.usize(..logs.len().max(1))).cloned() else {
                    return ("no logs to delete".into(), Vec::new());
                };
                std::fs::remove_dir_all(root.join(&dir)).expect("rm");
                (format!("delete {dir}"), vec![dir])
            }
            10 => {
                // the plan registers some cases (or none)
                let mut text = String::from("# plan\n");
                for c in CASES {
                    if self.rng.bool() {
                        let _ = writeln!(text, "| {c} | what |");
                    }
                }
                let f = format!("doc/test-plan/{}.md", self.pick(&DOMAINS));
                write(root, &f, &text);
                (format!("plan {f}"), vec![f])
            }
            _ => {
                // the catalog appears, breaks or is fixed
                let text = if self.rng.bool() {
                    "schemaVersion: 1\ncategories: []\n"
                } else {
                    "schemaVersion: [\n"
                };
                write(root, ".pouch/tester/catalog.yaml", text);
                (
                    "catalog".into(),
                    vec![".pouch/tester/catalog.yaml".to_owned()],
                )
            }
        }
    }
}
