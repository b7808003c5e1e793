//! One run folder: who it is (from its path), which run files its listing shows, and reading it.

use super::files::{parse_json_bytes, read_json_beneath};
use super::meta::{MetaSummary, meta_from_value};
use super::{RawRun, RunStatus};
use crate::problem::Problem;
use crate::tail::store::RunSnapshot;
use crate::workspace::run_folder::{self, Names};
use crate::workspace::run_tests::RunTests;
use crate::workspace::walk::Folder;
use crate::workspace::{contract, read, rel};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

/// Read the one run folder `dir` (under `tests/logs/`) as the scan would: `None`
/// when it holds no run file (yet, or any more).
pub fn read_folder(root: &Path, dir: &Path, problems: &mut Vec<Problem>) -> Option<RawRun> {
    read_folder_known(root, dir, problems, None)
}

/// [`read_folder`], its `meta.json` and timeline taken from `known` (the run
/// store's snapshot of the run as it ended) instead of read again.
pub fn read_folder_known(
    root: &Path,
    dir: &Path,
    problems: &mut Vec<Problem>,
    known: Option<&RunSnapshot>,
) -> Option<RawRun> {
    let logs = root.join("tests/logs");
    // a run folder needs a caseId folder above it (the scan says so as a problem)
    if dir == logs || dir.parent() == Some(logs.as_path()) || !dir.starts_with(&logs) {
        return None;
    }
    let folder = Folder::open(dir).ok()?;
    let mut names = Names::default();
    for (name, kind) in folder.entries().ok()? {
        names.note(&name, kind);
    }
    if !(names.meta || names.timeline) {
        return None;
    }
    Some(read_run(
        root, &logs, dir, &folder, names, problems, None, known,
    ))
}

/// Who a run is, as its folder `LOGS/<scope…>/<caseId>/<runId>` says (in JSON
/// `runId`, `caseId`, `scope`, in that order, where a run is shown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderIdent {
    /// The run folder's name, `YYYYMMDD-HHmmss-SSS`.
    pub run_id: String,
    /// The case folder's name.
    pub case_id: String,
    /// The folders between the logs root and the case's, joined with `/`.
    pub scope: String,
}

impl FolderIdent {
    /// The identity of the run folder `dir` under the logs root `logs`.
    pub fn of(logs: &Path, dir: &Path) -> FolderIdent {
        let name = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let case_dir = dir.parent().unwrap_or(dir);
        FolderIdent {
            run_id: name(dir),
            case_id: name(case_dir),
            scope: case_dir
                .parent()
                .and_then(|s| s.strip_prefix(logs).ok())
                .map(|s| rel(Path::new(""), s))
                .unwrap_or_default(),
        }
    }
}

/// Read the run folder `dir`, open as `folder`, whose listing showed `names`;
/// with `contract`, its contract checks too; with `known` (the run store's
/// snapshot of the run as it ended), its `meta.json` and timeline from there.
#[expect(
    clippy::too_many_arguments,
    reason = "the one reading of a run folder, its three callers' ways in"
)]
pub(crate) fn read_run(
    root: &Path,
    logs: &Path,
    dir: &Path,
    folder: &Folder,
    names: Names,
    problems: &mut Vec<Problem>,
    contract: Option<&mut Vec<Problem>>,
    known: Option<&RunSnapshot>,
) -> RawRun {
    let FolderIdent {
        scope,
        case_id,
        run_id,
    } = FolderIdent::of(logs, dir);
    let path = rel(root, dir);
    let mut meta = None;
    let mut meta_broken = false;
    let mut meta_text = String::new();
    if names.meta {
        let rel = format!("{path}/{}", run_folder::META);
        // the listing saw a regular file: a link there now is refused
        let read = match known.and_then(|k| k.meta.clone()) {
            Some(bytes) => parse_json_bytes(&rel, "meta", bytes),
            None => read_json_beneath(&rel, folder, run_folder::META, "meta", read::Links::Never),
        };
        let parsed = read.and_then(|(value, text)| {
            let m = meta_from_value(&rel, value, &text);
            meta_text = text;
            m
        });
        match parsed {
            Ok((m, mut p)) => {
                meta = Some(m);
                problems.append(&mut p);
            }
            Err(p) => {
                meta_broken = true;
                problems.push(p);
            }
        }
    }
    let status = RunStatus::of_meta(meta.as_ref());
    crate::progress::advance(1);
    // with the contract checks, their one read of the timeline keeps its lines
    let tests_lines = std::cell::RefCell::new(Vec::new());
    let checked = contract.is_some();
    if let Some(out) = contract {
        let view = contract::RunView {
            path: &path,
            run_id: &run_id,
            case_id: &case_id,
            scope: &scope,
            status,
            meta: meta.as_ref(),
            meta_text: &meta_text,
            names,
            tests_lines: Some(&tests_lines),
        };
        out.extend(contract::check_in(&view, folder));
    }
    // a finished run's per-test record, read once here and kept by the index
    let tests = (status.is_finished() && names.timeline)
        .then(|| {
            if checked {
                return Some(RunTests::of_bytes(&tests_lines.take()));
            }
            if let Some(k) = known {
                return Some(RunTests::of_events(k.events()));
            }
            read::read_beneath(
                folder.fd(),
                Path::new(run_folder::TIMELINE),
                read::Links::Never,
                read::Kind::Timeline,
            )
            .ok()
            .map(|b| RunTests::of_bytes(&b))
        })
        .flatten()
        .filter(|t| !t.is_empty())
        .map(Box::new);
    RawRun {
        tests,
        run_id,
        case_id: Arc::from(case_id),
        scope: Arc::from(scope),
        path,
        status,
        meta: meta.as_ref().map(MetaSummary::of),
        meta_broken,
        has_timeline: names.timeline,
        has_runtime_events: names.runtime,
        has_artifacts_json: names.artifacts_json,
        has_artifacts_dir: names.artifacts_dir,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// A run folder read alone says what the whole scan says of it: the same
    /// run files noted from the listing, links and a FIFO not counted.
    #[test]
    fn read_folder_agrees_with_the_scan() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        let dir = root.join("tests/logs/api/orders/create/20260315-101530-112");
        write(
            &dir.join(run_folder::META),
            r#"{"runId":"20260315-101530-112","status":"passed","stats":{"steps":3}}"#,
        );
        write(&dir.join(run_folder::TIMELINE), "{}\n");
        write(&dir.join("artifacts/shot.png"), "png");
        // a link under a run file's name is not a run file; a FIFO is not read
        std::os::unix::fs::symlink(dir.join(run_folder::META), dir.join(run_folder::ARTIFACTS))
            .expect("symlink");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join(run_folder::RUNTIME_EVENTS),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("fifo");

        let mut problems = Vec::new();
        let one = read_folder(root, &dir, &mut problems).expect("a run");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(&*one.scope, "api/orders");
        assert_eq!(&*one.case_id, "create");
        assert_eq!(one.run_id, "20260315-101530-112");
        assert_eq!(one.status, RunStatus::Passed);
        assert!(one.has_timeline && one.has_artifacts_dir);
        assert!(!one.has_artifacts_json && !one.has_runtime_events);

        let mut scan_problems = Vec::new();
        let logs = super::super::scan(root, &mut scan_problems);
        let [all] = logs.runs.as_slice() else {
            panic!("one run: {:?}", logs.runs)
        };
        assert_eq!(
            (all.path.as_str(), all.status, all.meta.as_ref()),
            (one.path.as_str(), one.status, one.meta.as_ref())
        );
        assert_eq!(
            (
                all.has_timeline,
                all.has_runtime_events,
                all.has_artifacts_json,
                all.has_artifacts_dir
            ),
            (
                one.has_timeline,
                one.has_runtime_events,
                one.has_artifacts_json,
                one.has_artifacts_dir
            )
        );
        // the scan says what it passed over; the folder read alone does not
        let rules: Vec<&str> = scan_problems.iter().map(|p| p.rule.as_str()).collect();
        assert!(rules.contains(&"symlink-not-followed"), "{rules:?}");
        assert!(rules.contains(&"not-a-regular-file"), "{rules:?}");
    }

    #[test]
    fn no_run_outside_a_case_folder() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        let domain = root.join("tests/logs/api");
        write(&domain.join(run_folder::META), "{}");
        let mut problems = Vec::new();
        assert!(read_folder(root, &domain, &mut problems).is_none());
        assert!(read_folder(root, &root.join("tests/logs"), &mut problems).is_none());
        // a folder without meta.json or timeline.jsonl is no run (yet)
        let empty = root.join("tests/logs/api/case/20260315-101530-112");
        write(&empty.join("notes.txt"), "x");
        assert!(read_folder(root, &empty, &mut problems).is_none());
        assert!(problems.is_empty(), "{problems:?}");
    }
}
