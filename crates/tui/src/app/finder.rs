//! The fuzzy finder (`/`): the candidates of both sources, the query and its results.

use std::sync::atomic::{AtomicU64, Ordering};
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::cases::{CaseRef, CaseRow};
use testdeck_core::workspace::fuzzy;

/// A candidate of the fuzzy finder.
#[derive(Clone)]
pub struct Candidate {
    /// The case it jumps to.
    pub key: CaseRef,
    /// What is matched and shown (sanitized), prepared for the matcher once.
    pub text: fuzzy::Haystack,
    pub source: &'static str,
    /// The set of candidates it was built with (each [`candidates`] call makes
    /// a new one): a finder narrows its last results only within one set.
    set: u64,
}

/// What a candidate is (its set, which only says when it was built, left out:
/// the same candidates built twice read the same).
impl std::fmt::Debug for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Candidate")
            .field("key", &self.key)
            .field("text", &self.text.as_str())
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Default)]
pub struct Finder {
    query: String,
    /// Candidate indices, best first.
    results: Vec<usize>,
    cursor: usize,
    /// The query and the candidates' set the results answer.
    found: Option<(String, u64)>,
}

/// The last set of candidates made.
static SETS: AtomicU64 = AtomicU64::new(0);

/// Every case of both sources, as the finder matches them.
pub fn candidates(ws: &Workspace, cases: &[CaseRow]) -> Vec<Candidate> {
    let set = SETS.fetch_add(1, Ordering::Relaxed) + 1;
    let mut v: Vec<Candidate> = cases
        .iter()
        .map(|c| {
            let path = c.test.map_or_else(
                || format!("tests/logs/{}", c.key),
                |t| ws.tests.cases[t].path.clone(),
            );
            Candidate {
                key: c.case_ref(),
                text: fuzzy::Haystack::new(fuzzy::tests_text(&c.case_id, &path)),
                source: "tests",
                set,
            }
        })
        .collect();
    if let Some(cat) = &ws.catalog {
        for case in &cat.cases {
            v.push(Candidate {
                key: CaseRef::Catalog(case.id.clone()),
                text: fuzzy::Haystack::new(fuzzy::catalog_text(
                    &case.id,
                    &case.title,
                    &case.category,
                )),
                source: "catalog",
                set,
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

    /// Candidate indices, best first.
    pub fn results(&self) -> &[usize] {
        &self.results
    }

    /// The query compiled, to find the matched characters of the rows drawn
    /// ([`fuzzy::Query::positions`]).
    pub fn highlighter(&self) -> fuzzy::Query {
        fuzzy::Query::new(&self.query)
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

    /// Match the query against `candidates`, best first. A query that extends
    /// the last one (and cannot widen: [`fuzzy::narrows`]) over the same
    /// candidates looks only at the last one's results.
    pub fn refind(&mut self, candidates: &[Candidate]) {
        let set = candidates.first().map_or(0, |c| c.set);
        let mut q = fuzzy::Query::new(&self.query);
        let narrow = self
            .found
            .as_ref()
            .is_some_and(|(old, s)| *s == set && fuzzy::narrows(old, &self.query));
        self.results = if narrow {
            let last = std::mem::take(&mut self.results);
            let within = last
                .into_iter()
                .filter_map(|i| candidates.get(i).map(|c| (i, &c.text)));
            fuzzy::order(&mut q, within)
        } else {
            fuzzy::order(&mut q, candidates.iter().map(|c| &c.text).enumerate())
        };
        self.found = Some((self.query.clone(), set));
        self.cursor = self.cursor.min(self.results.len().saturating_sub(1));
    }

    /// The key of the result under the cursor.
    pub fn selected_key(&self, candidates: &[Candidate]) -> Option<CaseRef> {
        self.results
            .get(self.cursor)
            .and_then(|i| candidates.get(*i))
            .map(|c| c.key.clone())
    }

    pub fn down(&mut self) {
        self.cursor = (self.cursor + 1).min(self.results.len().saturating_sub(1));
    }

    pub fn up(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }
}
