//! Rules on `run_together` groups: their ids exist, each in at most one group.

use super::{Cx, Out};
use std::collections::HashMap;

/// `run-together-id`: a group names a case that does not exist.
pub(super) fn run_together_id(cx: &Cx, out: &mut Out) {
    for (gi, g) in cx.cat.run_together.iter().enumerate() {
        for (id, pos) in g.ids.iter().zip(&g.id_pos) {
            if cx.cat.case(id).is_none() {
                out.emit(
                    &cx.cat.file,
                    *pos,
                    "run-together-id",
                    format!("run_together[{gi}]: no case has id {id}"),
                );
            }
        }
    }
}

/// `run-together-overlap`: a case in two groups (or twice in one).
pub(super) fn run_together_overlap(cx: &Cx, out: &mut Out) {
    let mut grouped: HashMap<&str, usize> = HashMap::new();
    for (gi, g) in cx.cat.run_together.iter().enumerate() {
        for (id, pos) in g.ids.iter().zip(&g.id_pos) {
            if let Some(other) = grouped.insert(id, gi) {
                out.emit(
                    &cx.cat.file,
                    *pos,
                    "run-together-overlap",
                    format!("run_together[{gi}]: {id} is already in run_together[{other}]"),
                );
            }
        }
    }
}
