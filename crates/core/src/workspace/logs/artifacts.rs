//! `artifacts.json` of a run: its items, each judged inside the run folder or not, there or not.

use super::files::{locate_key, locate_key_value, read_json_beneath, wrong_type};
use crate::problem::Problem;
use crate::workspace::walk::{Folder, Kind as EntryKind};
use crate::workspace::{read, rel, run_folder, timeline};
use serde_json::Value;
use std::path::{Component, Path};
// the items' model is the model's
pub use testdeck_model::logs::{ARTIFACT_KINDS, Artifact, spelled_inside};

/// Whether `rel` under the open folder `dir` stays inside it and whether it is
/// there, through the bounded reader's one guard (a link out, absolute or
/// dangling is out; not there yet is judged by the deepest part that is).
fn inside_and_exists(
    dir: std::os::fd::BorrowedFd<'_>,
    rel: &str,
    listed: Option<&[(std::ffi::OsString, EntryKind)]>,
) -> (bool, bool) {
    if !spelled_inside(Path::new(rel)) {
        return (false, false);
    }
    // `artifacts/<name>` of a run whose `artifacts/` folder was listed: the
    // listing says it (a link is still judged by the guard below)
    if let Some(listed) = listed {
        let parts: Vec<_> = Path::new(rel)
            .components()
            .filter(|c| *c != Component::CurDir)
            .collect();
        if let [Component::Normal(a), Component::Normal(name)] = parts.as_slice() {
            if *a == "artifacts" {
                match listed.iter().find(|(n, _)| n == name) {
                    None => return (true, false),
                    Some((_, k)) if *k != EntryKind::Link => return (true, true),
                    Some(_) => {}
                }
            }
        }
    }
    match read::locate_beneath(dir, Path::new(rel)) {
        Ok(found) => (true, found.is_some()),
        Err(_) => (false, false),
    }
}

/// Whether a relative path stays inside its folder (no `..` that climbs out, not
/// absolute, and no symlink on the way that leads out).
pub fn stays_inside(base: &Path, rel: &str) -> bool {
    spelled_inside(Path::new(rel))
        && Folder::open(base).is_ok_and(|f| inside_and_exists(f.fd(), rel, None).0)
}

/// Read `artifacts.json` of a run folder.
pub fn read_artifacts(root: &Path, run_dir: &Path) -> (Vec<Artifact>, Vec<Problem>) {
    let rel = rel(root, &run_dir.join(run_folder::ARTIFACTS));
    let read = Folder::open(run_dir)
        .map_err(|e| read::Error::Missing(e).problem(&rel, "artifacts"))
        .and_then(|f| {
            read_json_beneath(
                &rel,
                &f,
                run_folder::ARTIFACTS,
                "artifacts",
                read::Links::Inside,
            )
            .map(|(v, t)| (f, v, t))
        });
    match read {
        Ok((folder, value, text)) => artifacts_from(&rel, &folder, None, &value, &text),
        Err(p) => (Vec::new(), vec![p]),
    }
}

/// The items of a parsed `artifacts.json` (`rel` names it in problems) of the
/// open run folder `folder`, each judged inside or not and there or not
/// (`listed`: the entries of its `artifacts/` folder, when already read).
pub fn artifacts_from(
    rel: &str,
    folder: &Folder,
    listed: Option<&[(std::ffi::OsString, EntryKind)]>,
    value: &Value,
    text: &str,
) -> (Vec<Artifact>, Vec<Problem>) {
    let mut problems = Vec::new();
    let items = match value {
        Value::Object(m) => match m.get("items") {
            Some(Value::Array(a)) => a.as_slice(),
            Some(v) => {
                problems.push(wrong_type(
                    rel,
                    "artifacts-wrong-type",
                    text,
                    "items",
                    "an array",
                    v,
                ));
                &[]
            }
            None => {
                problems
                    .push(Problem::error(rel, "artifacts-wrong-type", "items is missing").at(1, 1));
                &[]
            }
        },
        v => {
            problems.push(
                Problem::error(
                    rel,
                    "artifacts-wrong-type",
                    format!(
                        "artifacts.json must be an object, found {}",
                        timeline::kind_of(v)
                    ),
                )
                .at(1, 1),
            );
            &[]
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Value::Object(m) = item else {
            problems.push(Problem::error(
                rel,
                "artifacts-wrong-type",
                format!("items[{i}] should be an object"),
            ));
            continue;
        };
        let field = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
        let Some(path) = field("path") else {
            let (l, c) = locate_key(text, "items");
            problems.push(
                Problem::error(
                    rel,
                    "artifacts-wrong-type",
                    format!("items[{i}].path should be a string"),
                )
                .at(l, c),
            );
            continue;
        };
        let refs = m.get("refs").and_then(Value::as_object);
        let reference = |k: &str| {
            refs.and_then(|r| r.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let (inside, exists) = inside_and_exists(folder.fd(), &path, listed);
        if !inside {
            let (l, c) = locate_key_value(text, &path);
            problems.push(
                Problem::error(
                    rel,
                    "artifact-path-escapes",
                    format!("path {path:?} leaves the run folder; it is never opened"),
                )
                .at(l, c),
            );
        }
        out.push(Artifact {
            id: field("id").unwrap_or_else(|| format!("#{i}")),
            kind: field("kind").unwrap_or_else(|| "other".into()),
            exists,
            path,
            step_id: reference("stepId"),
            assertion_id: reference("assertionId"),
            inside,
        });
    }
    (out, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_checks() {
        let d = std::env::temp_dir();
        assert!(stays_inside(&d, "artifacts/a.png"));
        assert!(stays_inside(&d, "artifacts/../a.png"));
        assert!(!stays_inside(&d, "../a.png"));
        assert!(!stays_inside(&d, "artifacts/../../a.png"));
        assert!(!stays_inside(&d, "/etc/passwd"));
    }
}
