//! The fuzzy finder (`/`): the candidates of both sources, the query and its results.

use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::cases::{CaseRef, CaseRow};
use testdeck_core::workspace::fuzzy;

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
    query: String,
    /// (candidate index, matched char positions), best first.
    results: Vec<(usize, Vec<u32>)>,
    cursor: usize,
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
                text: fuzzy::tests_text(&c.case_id, &path),
                source: "tests",
            }
        })
        .collect();
    if let Some(cat) = &ws.catalog {
        for case in &cat.cases {
            v.push(Candidate {
                key: CaseRef::Catalog(case.id.clone()),
                text: fuzzy::catalog_text(&case.id, &case.title, &case.category),
                source: "catalog",
            });
        }
    }
    v
}

impl Finder {
    /// A finder with `query` typed (its results come with [`Finder::refind`]).
    pub fn with_query(query: &str) -> Finder {
        Finder {
            query: query.to_owned(),
            ..Finder::default()
        }
    }

    /// What was typed.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// (candidate index, matched char positions), best first.
    pub fn results(&self) -> &[(usize, Vec<u32>)] {
        &self.results
    }

    /// The result under the cursor.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Type `c` into the query (`None`: erase one), from the first result again.
    pub fn type_char(&mut self, c: Option<char>) {
        match c {
            Some(c) => self.query.push(c),
            None => {
                self.query.pop();
            }
        }
        self.cursor = 0;
    }

    /// Clear the query.
    pub fn clear(&mut self) {
        self.query.clear();
    }

    /// Match the query against `candidates`, best first.
    pub fn refind(&mut self, candidates: &[Candidate]) {
        self.results = fuzzy::rank(&self.query, candidates.iter().map(|c| c.text.as_str()));
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
