//! Raw-log contract checks (seed 000 §5–6, SPEC §1.2): where a runner's logs drift
//! from the fixed contract. Every check is a located warning with a stable rule name.

use super::Workspace;
use super::logs::{self, META_FIELDS, Meta, RawRun, RunStatus, is_run_id, locate_key};
use super::run_folder::Names;
use super::timeline::{EVENT_STATUSES, EVENT_TYPES};
use super::walk::Folder;
use crate::problem::{Problem, Severity};
use rayon::prelude::*;
use std::path::Path;

/// A timeline line longer than this is reported (it is still read and shown).
pub(crate) const MAX_TIMELINE_LINE: usize = super::read::TIMELINE_LINE;

/// Check every run folder (in parallel). Syntax and type errors of `meta.json`
/// are already among the load problems; this adds the contract drift.
pub fn check_runs(ws: &Workspace) -> Vec<Problem> {
    ws.logs
        .runs
        .par_iter()
        .flat_map_iter(|r| check_run(&ws.root, r))
        .collect()
}

fn warn(file: &str, rule: &str, msg: impl Into<String>, at: (u32, u32)) -> Problem {
    Problem::warning(file, rule, msg).at(at.0, at.1)
}

/// What the contract checks of one run folder look at: its identity, the parsed
/// `meta.json` and its text (to locate keys), and the files its listing showed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunView<'a> {
    /// The run folder, relative to the workspace root.
    pub path: &'a str,
    pub(crate) run_id: &'a str,
    pub(crate) case_id: &'a str,
    pub(crate) scope: &'a str,
    pub(crate) status: RunStatus,
    pub meta: Option<&'a Meta>,
    /// `meta.json` as read (empty when it was not).
    pub(crate) meta_text: &'a str,
    pub names: Names,
    /// Where the timeline's lines that the run's per-test record reads are
    /// kept as the check streams them (the load's one pass reads it once).
    pub(crate) tests_lines: Option<&'a std::cell::RefCell<Vec<u8>>>,
}

/// The contract checks of one run folder, reading it again (the cockpit's
/// problem count of one run; `validate` checks during the one load pass).
pub fn check_run(root: &Path, run: &RawRun) -> Vec<Problem> {
    check_run_known(root, run, None)
}

/// [`check_run`], `meta.json` taken from `known` (the run store's snapshot of
/// the run as it ended) instead of read again.
pub fn check_run_known(
    root: &Path,
    run: &RawRun,
    known: Option<&crate::tail::store::RunSnapshot>,
) -> Vec<Problem> {
    let dir = root.join(&run.path);
    let Ok(folder) = Folder::open(&dir) else {
        return Vec::new();
    };
    // read through the bounded reader (a link out or a FIFO was reported on load)
    let meta_text = match known.and_then(|k| k.meta.clone()) {
        Some(bytes) => super::read::lossy(bytes),
        None => super::read::read_beneath(
            folder.fd(),
            Path::new(super::run_folder::META),
            super::read::Links::Inside,
            super::read::Kind::RunJson,
        )
        .map(super::read::lossy)
        .unwrap_or_default(),
    };
    // the index keeps only the meta's summary: the whole of it from the text read here
    let full = run
        .meta
        .as_ref()
        .and_then(|_| logs::parse_meta(&format!("{}/meta.json", run.path), &meta_text).ok())
        .map(|(m, _)| m);
    let view = RunView {
        path: &run.path,
        run_id: &run.run_id,
        case_id: &run.case_id,
        scope: &run.scope,
        status: run.status,
        meta: full.as_ref(),
        meta_text: &meta_text,
        names: Names {
            meta: run.meta.is_some() || run.meta_broken,
            timeline: run.has_timeline,
            runtime: run.has_runtime_events,
            artifacts_json: run.has_artifacts_json,
            artifacts_dir: run.has_artifacts_dir,
        },
        tests_lines: None,
    };
    check_in(&view, &folder)
}

/// The contract checks of one run folder held open (`folder`): each of its
/// files is opened once, relative to it.
#[expect(
    clippy::too_many_lines,
    reason = "one check per contract clause in the order the contract states them"
)]
pub(crate) fn check_in(run: &RunView<'_>, folder: &Folder) -> Vec<Problem> {
    let mut out = Vec::new();
    let meta_file = format!("{}/meta.json", run.path);
    let meta_text = run.meta_text;
    let at = |key: &str| locate_key(meta_text, key);
    // runId form and folder
    if !is_run_id(run.run_id) {
        out.push(warn(
            run.path,
            "run-id-format",
            format!(
                "run folder {:?} is not in YYYYMMDD-HHmmss-SSS form",
                run.run_id
            ),
            (0, 0),
        ));
    }
    if let Some(meta) = run.meta {
        // what meta.json says against what its folders say; the scope may be
        // written with leading or trailing slashes
        let said = [
            (
                "runId",
                "run-id-mismatch",
                &meta.run_id,
                run.run_id,
                "folder",
                false,
            ),
            (
                "caseId",
                "meta-case-mismatch",
                &meta.case_id,
                run.case_id,
                "folder",
                false,
            ),
            (
                "scope",
                "meta-scope-mismatch",
                &meta.scope,
                run.scope,
                "folders",
                true,
            ),
        ];
        for (key, code, value, folder, noun, trim) in said {
            let Some(v) = value else { continue };
            let compared = if trim {
                v.trim_matches('/')
            } else {
                v.as_str()
            };
            if compared != folder {
                out.push(warn(
                    &meta_file,
                    code,
                    format!("{key} {v:?} does not match its {noun} {folder:?}"),
                    at(key),
                ));
            }
        }
        for key in meta.extra.keys() {
            out.push(warn(
                &meta_file,
                "meta-extra-field",
                format!(
                    "top-level field {key:?} is not one of the fixed fields ({})",
                    META_FIELDS.join(", ")
                ),
                at(key),
            ));
        }
        if meta.schema_version != Some(4) {
            out.push(warn(
                &meta_file,
                "meta-schema-version",
                format!(
                    "schemaVersion is {}, the contract fixes 4",
                    meta.schema_version
                        .map_or("missing".to_owned(), |v| v.to_string())
                ),
                at("schemaVersion"),
            ));
        }
        match meta.status.as_deref() {
            Some("passed" | "failed") => {}
            Some(s) => out.push(warn(
                &meta_file,
                "meta-bad-status",
                format!("status {s:?} is not passed or failed (counted as failed)"),
                at("status"),
            )),
            // a wrongly typed status is already an error of its own
            None if meta_text.contains("\"status\"") => {}
            None => out.push(warn(
                &meta_file,
                "meta-bad-status",
                "status is missing (counted as failed)",
                (1, 1),
            )),
        }
        for key in ["startedAt", "finishedAt", "stats", "runtime"] {
            let missing = match key {
                "startedAt" => meta.started_at.is_none(),
                "finishedAt" => meta.finished_at.is_none(),
                "stats" => !meta_text.contains("\"stats\""),
                _ => !meta_text.contains("\"runtime\""),
            };
            if missing {
                out.push(warn(
                    &meta_file,
                    "meta-missing-field",
                    format!("fixed field {key:?} is missing"),
                    (1, 1),
                ));
            }
        }
        // a finished run writes all four files
        if !run.names.runtime {
            out.push(warn(
                run.path,
                "run-missing-runtime-events",
                "finished run without runtime-events.jsonl (the contract writes it, empty when there are no events)",
                (0, 0),
            ));
        }
        if !run.names.artifacts_json {
            out.push(warn(
                run.path,
                "run-missing-artifacts-json",
                "finished run without artifacts.json (the contract writes it, with empty items when there are none)",
                (0, 0),
            ));
        }
        if !run.names.timeline {
            out.push(warn(
                run.path,
                "run-missing-timeline",
                "finished run without timeline.jsonl",
                (0, 0),
            ));
        }
    }
    // listed once: for its emptiness and for the artifacts right under it
    let listed = if run.names.artifacts_dir {
        folder
            .sub(std::ffi::OsStr::new("artifacts"))
            .and_then(|d| d.entries())
            .ok()
    } else {
        None
    };
    if listed.as_ref().is_some_and(Vec::is_empty) {
        out.push(warn(
            &format!("{}/artifacts", run.path),
            "artifacts-dir-empty",
            "artifacts/ exists but holds no file (it is created only for real attachments)",
            (0, 0),
        ));
    }
    if run.names.timeline {
        out.extend(check_timeline(run, folder));
    }
    if run.names.artifacts_json {
        out.extend(check_artifacts(run, folder, listed.as_deref()));
    }
    out
}

/// Broken lines are errors; a `type` or `status` outside its value set is drift.
/// The file is streamed with a bounded buffer: a timeline of any size (or one
/// endless line) costs at most one line of [`MAX_TIMELINE_LINE`] in memory.
fn check_timeline(run: &RunView<'_>, folder: &Folder) -> Vec<Problem> {
    use std::io::{BufRead, Read};
    let rel = format!("{}/{}", run.path, super::run_folder::TIMELINE);
    let unreadable = || {
        vec![Problem::error(
            &rel,
            "timeline-unreadable",
            "cannot read timeline.jsonl",
        )]
    };
    // streamed, so no size cap; but never a FIFO, a device or a link out
    let f = match super::read::open_beneath(
        folder.fd(),
        Path::new(super::run_folder::TIMELINE),
        super::read::Links::Inside,
    ) {
        Ok((f, _)) => f,
        Err(e @ (super::read::Error::NotRegular(_) | super::read::Error::LinkOut)) => {
            return vec![e.problem(&rel, "timeline")];
        }
        Err(_) => return unreadable(),
    };
    let mut reader = std::io::BufReader::with_capacity(256 << 10, f);
    let mut out = Vec::new();
    let mut line = Vec::new();
    let mut lineno = 0u32;
    let cap = MAX_TIMELINE_LINE as u64 + 1;
    loop {
        line.clear();
        lineno = lineno.saturating_add(1);
        // read_until finds newlines with memchr; `take` bounds what one line keeps
        let Ok(n) = (&mut reader).take(cap).read_until(b'\n', &mut line) else {
            return unreadable();
        };
        if n == 0 {
            break;
        }
        let ended = line.last() == Some(&b'\n');
        if ended {
            line.pop();
        }
        let mut len = line.len();
        if !ended && n as u64 == cap {
            // an endless line: skip the rest of it without keeping it, counting
            // its bytes (not its newline: the length is the one `tail` reports)
            loop {
                let Ok(buf) = reader.fill_buf() else {
                    return unreadable();
                };
                if buf.is_empty() {
                    break;
                }
                if let Some(i) = memchr::memchr(b'\n', buf) {
                    len += i;
                    reader.consume(i + 1);
                    break;
                }
                let n = buf.len();
                len += n;
                reader.consume(n);
            }
        }
        if len <= MAX_TIMELINE_LINE && line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(keep) = run.tests_lines {
            if super::run_tests::worth_parsing(&line) {
                let mut k = keep.borrow_mut();
                k.extend_from_slice(&line);
                k.push(b'\n');
            }
        }
        check_timeline_line(&rel, &line, len, lineno, &mut out);
    }
    let _ = (EVENT_TYPES, EVENT_STATUSES);
    out
}

fn check_timeline_line(rel: &str, line: &[u8], len: usize, lineno: u32, out: &mut Vec<Problem>) {
    if len > MAX_TIMELINE_LINE {
        out.push(
            Problem::error(
                rel,
                "timeline-line-too-long",
                super::read::line_too_long(len as u64),
            )
            .at(lineno, 1),
        );
        return;
    }
    let (_, issues) = super::timeline::parse_line(line);
    for is in issues {
        let severity = if matches!(is.rule, "timeline-bad-type" | "timeline-bad-status") {
            Severity::Warning
        } else {
            Severity::Error
        };
        let mut p = Problem::error(rel, is.rule, is.message).at_line(lineno);
        p.column = is.column;
        p.severity = severity;
        out.push(p);
    }
}

/// artifacts.json: syntax, types, escaping paths, missing files, kinds, and the
/// e2e attachment policy of seed 000 §6.
fn check_artifacts(
    run: &RunView<'_>,
    folder: &Folder,
    listed: Option<&[(std::ffi::OsString, super::walk::Kind)]>,
) -> Vec<Problem> {
    let file = format!("{}/{}", run.path, super::run_folder::ARTIFACTS);
    // read once: the items and the text that locates them
    let (text, (items, mut out)) = match logs::read_json_beneath(
        &file,
        folder,
        super::run_folder::ARTIFACTS,
        "artifacts",
        super::read::Links::Inside,
    ) {
        Ok((value, text)) => {
            let found = logs::artifacts_from(&file, folder, listed, &value, &text);
            (text, found)
        }
        Err(p) => (String::new(), (Vec::new(), vec![p])),
    };
    if out.iter().any(|p| {
        // a file too large or unreadable is never read whole below
        [
            "-syntax",
            "-not-utf8",
            "-too-large",
            "-unreadable",
            "not-a-regular-file",
            "symlink-not-followed",
        ]
        .iter()
        .any(|s| p.rule.ends_with(s))
    }) {
        return out;
    }
    if let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(&text) {
        if m.get("schemaVersion").and_then(serde_json::Value::as_i64) != Some(4) {
            out.push(warn(
                &file,
                "artifacts-schema-version",
                "schemaVersion of artifacts.json is not 4",
                locate_key(&text, "schemaVersion"),
            ));
        }
    }
    for a in &items {
        let at = logs::locate_key_value(&text, &a.path);
        if !logs::ARTIFACT_KINDS.contains(&a.kind.as_str()) {
            out.push(warn(
                &file,
                "artifact-bad-kind",
                format!(
                    "kind {:?} of {:?} is not one of {}",
                    a.kind,
                    a.id,
                    logs::ARTIFACT_KINDS.join(" ")
                ),
                logs::locate_key_value(&text, &a.kind),
            ));
        }
        if a.inside && !a.exists {
            out.push(warn(
                &file,
                "artifact-missing",
                format!("artifact {:?}: file {:?} does not exist", a.id, a.path),
                at,
            ));
        }
    }
    let e2e = run.scope.split('/').nth(1) == Some("e2e");
    if e2e && run.status.is_finished() {
        let items_at = locate_key(&text, "items");
        if !items.iter().any(|a| a.kind == "trace") {
            out.push(warn(
                &file,
                "e2e-no-trace",
                "e2e run without a Playwright trace (always kept, seed 000 §6)",
                items_at,
            ));
        }
        if run.status == RunStatus::Failed {
            let bound = items.iter().any(|a| {
                a.kind == "screenshot" && (a.step_id.is_some() || a.assertion_id.is_some())
            });
            if !bound {
                out.push(warn(
                    &file,
                    "e2e-failed-no-screenshot",
                    "failed e2e run without a failure screenshot bound by refs.assertionId or refs.stepId",
                    items_at,
                ));
            }
            let report = super::read::locate_beneath(
                folder.fd(),
                Path::new("artifacts/playwright/report/index.html"),
            );
            if !matches!(report, Ok(Some(m)) if m.is_file()) {
                out.push(warn(
                    &file,
                    "e2e-failed-no-report",
                    "failed e2e run without artifacts/playwright/report/index.html",
                    items_at,
                ));
            }
        }
    }
    out
}
