//! Raw logs (seed 000 §5): run folders under `tests/logs/`, their `meta.json`,
//! `timeline.jsonl`, `runtime-events.jsonl`, `artifacts.json` and `artifacts/`.
//! The runs' model is the model's ([`testdeck_model::logs`], re-exported here);
//! the store scans, reads and judges.

mod artifacts;
mod files;
mod folder;
mod history;
mod judge;
mod meta;
mod scan;

pub use artifacts::{ARTIFACT_KINDS, Artifact, artifacts_from, read_artifacts, stays_inside};
pub use files::{
    MAX_JSON_FILE, locate_key, locate_key_value, read_json_beneath, read_json_file, read_timeline,
};
pub(crate) use folder::read_run;
pub use folder::{FolderIdent, read_folder, read_folder_known};
pub use history::{Chunk, History};
pub use judge::Judge;
pub use meta::{META_FIELDS, Meta, MetaRuntime, MetaStats, MetaSummary, parse_meta, read_meta};
pub(crate) use scan::{Listing, misplaced};
pub use scan::{scan, scan_with};
pub use testdeck_model::logs::*;

use std::path::Path;

/// `RawRun::details`: the whole `meta.json` of a run, read now.
pub trait RunDetails {
    /// The whole `meta.json` of this run, read now (the index keeps only its
    /// summary): `None` when it is not there or does not read.
    fn details(&self, root: &Path) -> Option<Meta>;
}

impl RunDetails for RawRun {
    fn details(&self, root: &Path) -> Option<Meta> {
        self.meta.as_ref()?;
        let file = root.join(&self.path).join(super::run_folder::META);
        read_meta(root, &file).ok().map(|(m, _)| m)
    }
}

/// `RawRun::judge` and `Logs::judge`: the runs without `meta.json` judged from
/// their folders (see [`Judge`]).
pub trait Judged {
    /// Judge the run(s) without `meta.json`; one whose `meta.json` is there but
    /// broken stays in progress.
    fn judge(&mut self, root: &Path, judge: &Judge);
}

impl Judged for RawRun {
    fn judge(&mut self, root: &Path, judge: &Judge) {
        if self.status == RunStatus::InProgress && self.meta.is_none() && !self.meta_broken {
            self.status = judge.unfinished(&self.path, &root.join(&self.path));
        }
    }
}

impl Judged for Logs {
    fn judge(&mut self, root: &Path, judge: &Judge) {
        judge_runs(&mut self.runs, root, judge);
    }
}

/// [`Judged::judge`] on some runs (one domain's, as they arrive).
pub fn judge_runs(runs: &mut [RawRun], root: &Path, judge: &Judge) {
    for r in runs {
        r.judge(root, judge);
    }
}
