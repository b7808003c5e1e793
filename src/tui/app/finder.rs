//! The fuzzy finder (`/`): the candidates of both sources, the query and its results.

use crate::sanitize::escape;
use crate::workspace::Workspace;
use crate::workspace::cases::{CaseRef, CaseRow};
use crate::workspace::fuzzy::Query;

/// A candidate of the fuzzy finder.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The case it jumps to.
    pub key: CaseRef,
    /// What is matched and shown (sanitized).
    pub text: String,
    pub source: &'static str,
}

#[derive(Debug, Clone, Default)]
pub struct Finder {
    pub query: String,
    /// (candidate index, matched char positions), best first.
    pub results: Vec<(usize, Vec<u32>)>,
    pub cursor: usize,
}

/// Every case of both sources, as the finder matches them.
pub fn candidates(ws: &Workspace, cases: &[CaseRow]) -> Vec<Candidate> {
    let mut v: Vec<Candidate> = cases
        .iter()
        .map(|c| {
            let path = c.test.map_or_else(
                || format!("tests/logs/{}", c.key),
                |t| ws.tests.cases[t].path.clone(),
            );
            Candidate {
                key: c.case_ref(),
                text: escape(&format!("{}  {}", c.case_id, path)).into_owned(),
                source: "tests",
            }
        })
        .collect();
    if let Some(cat) = &ws.catalog {
        for case in &cat.cases {
            v.push(Candidate {
                key: CaseRef::Catalog(case.id.clone()),
                text: escape(&format!("{}  {}  [{}]", case.id, case.title, case.category))
                    .into_owned(),
                source: "catalog",
            });
        }
    }
    v
}

impl Finder {
    /// Match the query against `candidates`, best first.
    pub fn refind(&mut self, candidates: &[Candidate]) {
        let mut q = Query::new(&self.query);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize, Vec<u32>)> = Vec::new();
        for (i, c) in candidates.iter().enumerate() {
            if let Some(s) = q.indices(&c.text, &mut buf) {
                scored.push((s, i, buf.clone()));
            }
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.results = scored.into_iter().map(|(_, i, ix)| (i, ix)).collect();
        self.cursor = self.cursor.min(self.results.len().saturating_sub(1));
    }

    /// The key of the result under the cursor.
    pub fn selected_key(&self, candidates: &[Candidate]) -> Option<CaseRef> {
        self.results
            .get(self.cursor)
            .and_then(|(i, _)| candidates.get(*i))
            .map(|c| c.key.clone())
    }

    pub fn down(&mut self) {
        self.cursor = (self.cursor + 1).min(self.results.len().saturating_sub(1));
    }

    pub fn up(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }
}
