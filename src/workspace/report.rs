//! `tests/report/<domain>/report.md` (seed 000 §7): the 通过率 blocks testdeck prints.

use std::fmt::Write as _;

use super::stats::{NodeKind, NodeStats, markdown_block};

/// The 通过率 blocks of every node, each under a heading naming the node.
pub fn markdown(nodes: &[NodeStats]) -> String {
    let mut out = String::new();
    for n in nodes {
        let title = match n.kind {
            NodeKind::Root => "(all)".to_owned(),
            _ => format!("`{}` ({})", n.path, n.kind.as_str()),
        };
        let _ = write!(
            out,
            "<!-- {title} -->\n##### 通过率\n\n{}\n",
            markdown_block(n)
        );
    }
    out
}
