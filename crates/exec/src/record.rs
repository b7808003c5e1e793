//! Run records of the catalog (SPEC §1.5): `.pouch/tester/runs/<run-id>.yaml`,
//! unique names, atomic updates after each case, the full output of each case
//! beside it, and the CSV (成绩单) generated from it.

use super::http::ProbeResult;
use super::policy::Risk;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use testdeck_core::problem::Problem;

/// Where run records live, relative to the workspace root.
pub use testdeck_core::workspace::read::RUNS_DIR;

/// The verdicts of seed 001.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// `pass`: the case passed.
    Pass,
    /// `fail`: the case failed.
    Fail,
    /// `environment-fail`: the environment failed the case (not the product).
    EnvironmentFail,
    /// `skipped`: not run, by a rule (`assume`, authorization, a probe).
    Skipped,
    /// `not-run`: not run, not judged.
    NotRun,
}

impl Verdict {
    /// Every verdict, in the seed's order.
    pub const ALL: [Verdict; 5] = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::EnvironmentFail,
        Verdict::Skipped,
        Verdict::NotRun,
    ];
    /// The seed's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::EnvironmentFail => "environment-fail",
            Verdict::Skipped => "skipped",
            Verdict::NotRun => "not-run",
        }
    }
    /// The verdict spelled `s`.
    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }
    /// `fail` and `environment-fail` make `run` exit 1.
    pub(crate) fn is_failure(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::EnvironmentFail)
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One authorization used by the run: what, through which variable, how, when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationRecord {
    /// `risk:mutating`, `gate:payments`, `live`, `remote`.
    pub what: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The switch variable set to `true`, when there was one.
    pub variable: Option<String>,
    /// `environment`, `local.yaml`, `flag` or `prompt`.
    pub how: String,
    /// When it was granted.
    pub when: String,
}

/// The probe of one category (`probe: null` when the category has none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryProbe {
    /// The category id.
    pub category: String,
    /// The probe's result, `None` when the category has none.
    pub probe: Option<ProbeResult>,
}

/// One case's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    /// The case id.
    pub id: String,
    /// Its category.
    pub category: String,
    /// Its title.
    pub title: String,
    /// Its risk.
    pub risk: Risk,
    /// Its verdict.
    pub verdict: Verdict,
    /// Why, when the verdict says little by itself.
    pub reason: Option<String>,
    /// When it started.
    pub started_at: String,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// The process's exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The expanded command shown before it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<String>,
    /// The last lines of output (the full output is in `log`).
    #[serde(default)]
    pub output: Vec<String>,
    /// The full output, relative to the workspace root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// `person` when the verdict was given by a person in the TUI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The person's note with the verdict.
    pub note: Option<String>,
}

impl CaseResult {
    /// A result for `case` that has not run yet (no output, no reason).
    pub fn new(
        case: &testdeck_core::workspace::catalog::Case,
        risk: Risk,
        verdict: Verdict,
        started_at: String,
    ) -> Self {
        Self::named(
            case.id.clone(),
            case.category.clone(),
            case.title.clone(),
            risk,
            verdict,
            started_at,
        )
    }

    /// The same for a case known only by its id, category and title.
    fn named(
        id: String,
        category: String,
        title: String,
        risk: Risk,
        verdict: Verdict,
        started_at: String,
    ) -> Self {
        CaseResult {
            id,
            category,
            title,
            risk,
            verdict,
            reason: None,
            started_at,
            duration_ms: 0,
            exit_code: None,
            command: None,
            output: Vec::new(),
            log: None,
            judged_by: None,
            note: None,
        }
    }
}

/// A run record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    /// The run's id (its record's file name).
    pub run_id: String,
    /// When the run started.
    pub started_at: String,
    /// When it finished; `None` while it runs.
    pub finished_at: Option<String>,
    /// The run's label.
    pub label: String,
    /// The workspace's git commit, when it is a repository.
    pub git_commit: Option<String>,
    /// The workspace's git branch, when it is on one.
    pub git_branch: Option<String>,
    /// The HOST the cases addressed.
    pub host: String,
    /// The max risk of the run.
    pub max_risk: Risk,
    #[serde(default)]
    /// Every authorization the run used.
    pub authorizations: Vec<AuthorizationRecord>,
    /// The resolved agent (catalog.yaml `agent` shallow-merged with local.yaml).
    #[serde(default)]
    pub agent: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    /// Each selected category's probe.
    pub probes: Vec<CategoryProbe>,
    #[serde(default)]
    /// Each case's result, in execution order.
    pub results: Vec<CaseResult>,
}

impl RunRecord {
    /// A fresh record for a run starting now.
    pub fn new(run_id: String, label: String, host: String, max_risk: Risk) -> RunRecord {
        RunRecord {
            run_id,
            started_at: now(),
            finished_at: None,
            label,
            git_commit: None,
            git_branch: None,
            host,
            max_risk,
            authorizations: Vec::new(),
            agent: serde_json::Map::new(),
            probes: Vec::new(),
            results: Vec::new(),
        }
    }

    /// How many results of each verdict, every verdict present.
    pub fn counts(&self) -> serde_json::Map<String, serde_json::Value> {
        Verdict::ALL
            .iter()
            .map(|v| {
                let n = self.results.iter().filter(|r| r.verdict == *v).count();
                (v.as_str().to_owned(), n.into())
            })
            .collect()
    }
}

/// What a run record amounts to, as one mark: a failure, still running, something
/// passed, or nothing ran (every case skipped or not run: never a green mark).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A case failed.
    Failed,
    /// The run has not finished.
    Running,
    /// At least one case passed, none failed.
    Passed,
    /// Every case was skipped or not run.
    NothingRan,
}

impl RunRecord {
    /// The record's mark: failed before running, running before passed; a finished
    /// record passed only when at least one case passed.
    pub fn outcome(&self) -> Outcome {
        if self.results.iter().any(|r| r.verdict.is_failure()) {
            Outcome::Failed
        } else if self.finished_at.is_none() {
            Outcome::Running
        } else if self.results.iter().any(|r| r.verdict == Verdict::Pass) {
            Outcome::Passed
        } else {
            Outcome::NothingRan
        }
    }
}

/// One verdict a catalog case got in one run record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastVerdict {
    /// The run record's runId.
    pub run_id: String,
    pub(crate) started_at: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, when the verdict says little by itself.
    pub reason: Option<String>,
    /// Given by a person (`judged_by: person`).
    pub by_person: bool,
    /// The person's note.
    pub note: Option<String>,
}

/// The last `n` verdicts of catalog case `case_id`, newest first, from `records`
/// given oldest first (as [`list_records`] returns them).
pub fn last_verdicts<'a, I>(records: I, case_id: &str, n: usize) -> Vec<PastVerdict>
where
    I: IntoIterator<Item = &'a RunRecord>,
    I::IntoIter: DoubleEndedIterator,
{
    records
        .into_iter()
        .rev()
        .filter_map(|rec| {
            let r = rec.results.iter().rev().find(|r| r.id == case_id)?;
            Some(PastVerdict {
                run_id: rec.run_id.clone(),
                started_at: r.started_at.clone(),
                verdict: r.verdict,
                reason: r.reason.clone(),
                by_person: r.judged_by.is_some(),
                note: r.note.clone(),
            })
        })
        .take(n)
        .collect()
}

/// The current UTC time as RFC 3339 with milliseconds.
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Labels are letters, digits, `-`, `_` and `.`, not empty.
pub fn valid_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= 64
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// `20260920T101530Z-smoke-a13f9c`.
pub(crate) fn new_run_id(label: &str) -> String {
    format!(
        "{}-{label}-{:06x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        fastrand::u32(..0x0100_0000)
    )
}

/// The git commit and branch of the checkout holding `root`, when it is one.
pub(crate) fn git_info(root: &Path) -> (Option<String>, Option<String>) {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    let commit = git(&["rev-parse", "HEAD"]);
    let branch = commit
        .as_ref()
        .and_then(|_| git(&["rev-parse", "--abbrev-ref", "HEAD"]))
        .filter(|b| b != "HEAD");
    (commit, branch)
}

/// The record of one run being written: its file is reserved when the run
/// starts and replaced atomically after each case.
#[derive(Debug)]
pub struct RecordWriter {
    /// The record's file.
    pub path: PathBuf,
    /// The CSV beside it.
    pub csv: PathBuf,
    /// `runs/<run-id>/`: the full output of each case.
    pub logs: PathBuf,
    /// The record as written so far.
    pub record: RunRecord,
}

impl RecordWriter {
    /// Reserve a new, never-used name under `root/.pouch/tester/runs/` and write
    /// the first version of `record` (whose `runId` is set here).
    pub fn create(root: &Path, mut record: RunRecord) -> std::io::Result<RecordWriter> {
        // never through a link: a runs folder that leads out gets nothing
        let dir = testdeck_core::workspace::read::owned_dir(root, Path::new(RUNS_DIR))?;
        let mut tries = 0;
        loop {
            let run_id = new_run_id(&record.label);
            let path = dir.join(format!("{run_id}.yaml"));
            // create_new: two runs in the same second never share a record
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => {
                    record.run_id.clone_from(&run_id);
                    let w = RecordWriter {
                        csv: dir.join(format!("{run_id}.csv")),
                        logs: dir.join(&run_id),
                        path,
                        record,
                    };
                    w.save()?;
                    return Ok(w);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 100 => {
                    tries += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The full-output file of a case (its id made safe as a file name).
    pub(crate) fn case_log(&self, case_id: &str) -> PathBuf {
        let safe: String = case_id
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.logs.join(format!("{safe}.log"))
    }

    /// Remove what [`RecordWriter::create`] and the saves wrote (a launch in
    /// which nothing ran keeps no record).
    pub(crate) fn discard(self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_file(&self.csv);
        let _ = std::fs::remove_dir_all(&self.logs);
    }

    /// Write the YAML and the CSV, each through a temp file and a rename.
    pub(crate) fn save(&self) -> std::io::Result<()> {
        let yaml = serde_saphyr::to_string(&self.record)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        write_atomic(&self.path, yaml.as_bytes())?;
        write_atomic(&self.csv, to_csv(&self.record).as_bytes())
    }
}

impl RecordWriter {
    /// Record a person's verdict for a case of this run (a case the run marked
    /// `not-run` because it needs a person, or any other) and save.
    pub(crate) fn judge(
        &mut self,
        case_id: &str,
        verdict: Verdict,
        note: Option<String>,
    ) -> std::io::Result<bool> {
        let found = judge_in(&mut self.record, case_id, verdict, note);
        if found {
            self.save()?;
        }
        Ok(found)
    }
}

/// Set a person's verdict on a case result; false when the case is not in the record.
pub fn judge_in(
    record: &mut RunRecord,
    case_id: &str,
    verdict: Verdict,
    note: Option<String>,
) -> bool {
    let Some(r) = record.results.iter_mut().find(|r| r.id == case_id) else {
        return false;
    };
    r.verdict = verdict;
    r.reason = Some("judged by a person".into());
    r.judged_by = Some("person".into());
    r.note = note;
    true
}

/// Record a person's verdict in a finished run record on disk (YAML and CSV
/// rewritten atomically). While the run is live use `LaunchHandle::judge`.
pub fn judge_file(
    root: &Path,
    record: &Path,
    case_id: &str,
    verdict: Verdict,
    note: Option<String>,
) -> Result<bool, Problem> {
    let mut r = read_record(root, record)?;
    if !judge_in(&mut r, case_id, verdict, note) {
        return Ok(false);
    }
    let stem = record.with_extension("");
    let w = RecordWriter {
        path: record.to_path_buf(),
        csv: record.with_extension("csv"),
        logs: stem,
        record: r,
    };
    w.save().map_err(|e| {
        Problem::error(
            testdeck_core::workspace::rel(root, record),
            "run-record-unwritable",
            e.to_string(),
        )
    })?;
    Ok(true)
}

pub use testdeck_core::workspace::read::write_atomic;

/// The columns of the CSV (成绩单).
pub(crate) const CSV_COLUMNS: [&str; 10] = [
    "runId",
    "id",
    "category",
    "title",
    "risk",
    "verdict",
    "reason",
    "startedAt",
    "durationMs",
    "exitCode",
];

/// The CSV of a record: a header, then one row a case (the one writer of `cases.csv`).
pub fn to_csv(r: &RunRecord) -> String {
    let rows = r.results.iter().map(|c| {
        [
            r.run_id.clone(),
            c.id.clone(),
            c.category.clone(),
            c.title.clone(),
            c.risk.as_str().to_owned(),
            c.verdict.as_str().to_owned(),
            c.reason.clone().unwrap_or_default(),
            c.started_at.clone(),
            c.duration_ms.to_string(),
            c.exit_code.map(|e| e.to_string()).unwrap_or_default(),
        ]
    });
    testdeck_core::workspace::catalog::csv::table(&CSV_COLUMNS, rows)
}

/// Read one run record.
pub fn read_record(root: &Path, path: &Path) -> Result<RunRecord, Problem> {
    let rel = testdeck_core::workspace::rel(root, path);
    // a record stays in the runs folder: a link to an outside file would change
    // what `runs` shows and what `run --failed` reruns
    let within = path.parent().unwrap_or(root);
    let bytes = testdeck_core::workspace::read::read(
        path,
        Some(within),
        testdeck_core::workspace::read::Kind::RunRecord,
    )
    .map_err(|e| e.problem(&rel, "run-record"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Problem::error(&rel, "run-record-unreadable", "not UTF-8 text"))?;
    serde_saphyr::from_str::<RunRecord>(&text).map_err(|e| {
        let (line, col) = e
            .location()
            .map_or((0, 0), |l| (l.line() as u32, l.column() as u32));
        Problem::error(&rel, "run-record-syntax", e.to_string()).at(line, col)
    })
}

/// Every run record of the workspace, oldest first (names sort in time order),
/// each parsed or with the problem that kept it from parsing.
pub fn list_records(root: &Path) -> Vec<(PathBuf, Result<RunRecord, Problem>)> {
    // records read through a link would be someone else's: one problem, none read
    if let Some(link) = testdeck_core::workspace::read::link_on_the_way(root, Path::new(RUNS_DIR)) {
        let p = Problem::error(
            &link,
            "symlink-not-followed",
            "the run records' folder is reached through a symbolic link: not read",
        );
        return vec![(root.join(&link), Err(p))];
    }
    let Ok(rd) = std::fs::read_dir(root.join(RUNS_DIR)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            // a link is read (and refused when it leads out) so that it is reported
            p.extension().is_some_and(|e| e == "yaml")
                && (p.is_file() || p.is_symlink())
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let r = read_record(root, &p);
            (p, r)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for (label, valid) in [
            ("smoke-1_a.b", true),
            ("", false),
            ("a b", false),
            ("a/b", false),
            ("ä", false),
        ] {
            assert_eq!(valid_label(label), valid, "{label:?}");
        }
    }

    #[test]
    fn run_id_shape() {
        let id = new_run_id("smoke");
        let re = regex::Regex::new(r"^\d{8}T\d{6}Z-smoke-[0-9a-f]{6}$").expect("regex");
        assert!(re.is_match(&id), "{id}");
    }

    fn result(id: &str, verdict: Verdict) -> CaseResult {
        CaseResult::named(
            id.into(),
            "C".into(),
            String::new(),
            Risk::Readonly,
            verdict,
            now(),
        )
    }

    fn record(id: &str, results: Vec<CaseResult>) -> RunRecord {
        let mut r = RunRecord::new(id.into(), "t".into(), "127.0.0.1".into(), Risk::Readonly);
        r.results = results;
        r.finished_at = Some(now());
        r
    }

    #[test]
    fn a_record_of_only_skipped_or_not_run_cases_is_not_a_pass() {
        let r = record(
            "a",
            vec![result("X", Verdict::Skipped), result("Y", Verdict::NotRun)],
        );
        assert_eq!(r.outcome(), Outcome::NothingRan);
        let mut r2 = r.clone();
        assert!(judge_in(&mut r2, "Y", Verdict::Pass, None));
        assert_eq!(r2.outcome(), Outcome::Passed);
        assert!(judge_in(&mut r2, "X", Verdict::Fail, None));
        assert_eq!(r2.outcome(), Outcome::Failed);
        let mut open = r.clone();
        open.finished_at = None;
        assert_eq!(open.outcome(), Outcome::Running);
        assert_eq!(record("e", Vec::new()).outcome(), Outcome::NothingRan);
    }

    #[test]
    fn last_verdicts_of_a_case_newest_first() {
        let mut judged = record("r3", vec![result("X", Verdict::NotRun)]);
        assert!(judge_in(&mut judged, "X", Verdict::Pass, Some("ok".into())));
        let records = [
            record(
                "r1",
                vec![result("X", Verdict::Fail), result("Y", Verdict::Pass)],
            ),
            record("r2", vec![result("Y", Verdict::Skipped)]),
            judged,
            record("r4", vec![result("X", Verdict::Skipped)]),
        ];
        let v = last_verdicts(&records, "X", 2);
        let got: Vec<(&str, Verdict, bool)> = v
            .iter()
            .map(|p| (p.run_id.as_str(), p.verdict, p.by_person))
            .collect();
        assert_eq!(
            got,
            [("r4", Verdict::Skipped, false), ("r3", Verdict::Pass, true)]
        );
        assert_eq!(v[1].note.as_deref(), Some("ok"));
        assert_eq!(last_verdicts(&records, "X", 10).len(), 3);
        assert!(last_verdicts(&records, "Z", 10).is_empty());
    }
}
