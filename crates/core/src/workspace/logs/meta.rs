//! `meta.json` of a run: the model and its parser are the model's
//! ([`testdeck_model::meta`], re-exported here); the store reads the file.

use super::files::read_json_file;
use crate::problem::Problem;
use crate::workspace::rel;
use std::path::Path;
pub use testdeck_model::meta::*;

/// Read `meta.json`. A syntax error is `Err`; wrong types are problems beside a
/// meta that keeps what could be read.
pub fn read_meta(root: &Path, file: &Path) -> Result<(Meta, Vec<Problem>), Problem> {
    let (value, text) = read_json_file(root, file, "meta")?;
    meta_from_value(&rel(root, file), value, &text)
}
