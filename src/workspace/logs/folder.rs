//! One run folder: who it is (from its path), which run files its listing shows, and reading it.

use super::files::read_json_beneath;
use super::meta::{MetaSummary, meta_from_value};
use super::{RawRun, RunStatus};
use crate::problem::Problem;
use crate::workspace::walk::Folder;
use crate::workspace::{contract, read, rel, run};
use std::path::Path;
use std::sync::Arc;

/// Read the one run folder `dir` (under `tests/logs/`) as the scan would: `None`
/// when it holds no run file (yet, or any more).
pub fn read_folder(root: &Path, dir: &Path, problems: &mut Vec<Problem>) -> Option<RawRun> {
    let logs = root.join("tests/logs");
    // a run folder needs a caseId folder above it (the scan says so as a problem)
    if dir == logs || dir.parent() == Some(logs.as_path()) || !dir.starts_with(&logs) {
        return None;
    }
    let mut names = Names::default();
    for ent in std::fs::read_dir(dir).ok()?.flatten() {
        let Ok(ft) = ent.file_type() else { continue };
        match ent.file_name().to_str() {
            Some(run::META) if ft.is_file() => names.meta = true,
            Some(run::TIMELINE) if ft.is_file() => names.timeline = true,
            Some(run::RUNTIME_EVENTS) if ft.is_file() => names.runtime = true,
            Some(run::ARTIFACTS) if ft.is_file() => names.artifacts_json = true,
            Some("artifacts") if ft.is_dir() => names.artifacts_dir = true,
            _ => {}
        }
    }
    if !(names.meta || names.timeline) {
        return None;
    }
    let folder = Folder::open(dir).ok()?;
    Some(read_run(root, &logs, dir, &folder, names, problems, None))
}

/// The run files a run folder's listing shows (regular files and the `artifacts/` folder).
#[derive(Debug, Clone, Copy, Default)]
pub struct Names {
    pub meta: bool,
    pub timeline: bool,
    pub runtime: bool,
    pub artifacts_json: bool,
    pub artifacts_dir: bool,
}

/// Who a run is, as its folder `LOGS/<scope…>/<caseId>/<runId>` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderIdent {
    /// The folders between the logs root and the case's, joined with `/`.
    pub scope: String,
    pub case_id: String,
    pub run_id: String,
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
            scope: case_dir
                .parent()
                .and_then(|s| s.strip_prefix(logs).ok())
                .map(|s| rel(Path::new(""), s))
                .unwrap_or_default(),
            case_id: name(case_dir),
            run_id: name(dir),
        }
    }
}

/// Read the run folder `dir`, open as `folder`, whose listing showed `names`;
/// with `contract`, its contract checks too.
pub(super) fn read_run(
    root: &Path,
    logs: &Path,
    dir: &Path,
    folder: &Folder,
    names: Names,
    problems: &mut Vec<Problem>,
    contract: Option<&mut Vec<Problem>>,
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
        let rel = format!("{path}/{}", run::META);
        // the listing saw a regular file: a link there now is refused
        let parsed = read_json_beneath(&rel, folder, run::META, "meta", read::Links::Never)
            .and_then(|(value, text)| {
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
    let status = match meta.as_ref().and_then(|m| m.status.as_deref()) {
        Some("passed") => RunStatus::Passed,
        Some(_) => RunStatus::Failed,
        // a meta without a status says the run ended but not how: count it failed
        None if meta.is_some() => RunStatus::Failed,
        None => RunStatus::InProgress,
    };
    crate::progress::advance(1);
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
        };
        out.extend(contract::check_in(&view, folder));
    }
    RawRun {
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
