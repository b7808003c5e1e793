//! One run file read whole, bounded: the bytes through the bounded reader, then
//! parsed by the model ([`testdeck_model::run_file`], re-exported here).

pub use testdeck_model::run_file::*;

use crate::problem::Problem;
use crate::workspace::timeline::TimelineEvent;
use crate::workspace::walk::Folder;
use crate::workspace::{read, rel};
use serde_json::Value;
use std::path::Path;

/// Read the JSON file `name` of the open run folder `folder` (`rel` names it in
/// problems), through the bounded reader's one guard.
pub fn read_json_beneath(
    rel: &str,
    folder: &Folder,
    name: &str,
    rule_prefix: &str,
    links: read::Links,
) -> Result<(Value, String), Problem> {
    let bytes = read::read_beneath(folder.fd(), Path::new(name), links, read::Kind::RunJson)
        .map_err(|e| e.problem(rel, rule_prefix))?;
    parse_json_bytes(rel, rule_prefix, bytes)
}

/// Read a JSON file with a size limit; a syntax error is located.
pub fn read_json_file(
    root: &Path,
    file: &Path,
    rule_prefix: &str,
) -> Result<(Value, String), Problem> {
    let rel = rel(root, file);
    // a run file stays in its run folder: a link out (to /dev/zero, an outside
    // record) or a FIFO is refused before a byte is read
    let within = file.parent().unwrap_or(root);
    let bytes = read::read(file, Some(within), read::Kind::RunJson)
        .map_err(|e| e.problem(&rel, rule_prefix))?;
    parse_json_bytes(&rel, rule_prefix, bytes)
}

/// A whole timeline read at once (for small files; the tail engine follows big or growing ones).
pub fn read_timeline(root: &Path, file: &Path) -> (Vec<TimelineEvent>, Vec<Problem>) {
    let rel = rel(root, file);
    let within = file.parent().unwrap_or(root);
    let bytes = match read::read(file, Some(within), read::Kind::Timeline) {
        Ok(b) => b,
        Err(e) => return (Vec::new(), vec![e.problem(&rel, "timeline")]),
    };
    parse_timeline(&rel, &bytes)
}
