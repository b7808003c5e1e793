//! The test plan (`doc/test-plan/**`): which caseIds are registered, and the
//! entry (heading section or table row) that defines each case.

use serde::Serialize;
use std::collections::HashMap;

/// The test plan: its files and where each identifier appears in them.
#[derive(Debug, Clone, Default)]
pub struct TestPlan {
    /// Files relative to the root, with their lines.
    pub files: Vec<(String, Vec<String>)>,
    /// identifier token -> places (file index, 1-based line) where it appears.
    index: HashMap<String, Vec<(usize, u32)>>,
}

/// The plan's entry for one case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanEntry {
    /// The plan file, relative to the workspace root.
    pub file: String,
    /// 1-based line of the entry.
    pub line: u32,
    /// The entry's text.
    pub text: String,
}

fn is_ident_byte(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'
}

impl TestPlan {
    /// A plan made from its files' texts, `(path relative to the root, text)`
    /// (the store's `TestPlan::load` reads `doc/test-plan/`; tests and benchmarks
    /// make one in memory).
    pub fn from_files(files: Vec<(String, String)>) -> TestPlan {
        let mut plan = TestPlan {
            files: files
                .into_iter()
                .map(|(f, t)| (f, t.lines().map(str::to_owned).collect()))
                .collect(),
            index: HashMap::new(),
        };
        plan.build_index();
        plan
    }

    fn build_index(&mut self) {
        for (fi, (_, lines)) in self.files.iter().enumerate() {
            for (li, line) in lines.iter().enumerate() {
                for tok in line.split(|c: char| !is_ident_byte(c)) {
                    let tok = tok.trim_matches('.');
                    if tok.is_empty() {
                        continue;
                    }
                    let at = (fi, li as u32 + 1);
                    // a token seen before is looked up, not copied (most are:
                    // a plan's tables repeat their words on every row)
                    match self.index.get_mut(tok) {
                        Some(places) => {
                            if places.last() != Some(&at) {
                                places.push(at);
                            }
                        }
                        None => {
                            self.index.insert(tok.to_owned(), vec![at]);
                        }
                    }
                }
            }
        }
    }

    /// The caseId appears as a whole word in some plan file.
    pub fn is_registered(&self, case_id: &str) -> bool {
        self.index.contains_key(case_id)
    }

    /// Every entry that defines the case: a heading that names it (with its
    /// section) or a table row that names it. When no heading or row names it, the
    /// section around its first mention.
    pub fn entries(&self, case_id: &str) -> Vec<PlanEntry> {
        let out = self.defining(case_id);
        if !out.is_empty() {
            return out;
        }
        let Some(places) = self.index.get(case_id) else {
            return Vec::new();
        };
        places
            .iter()
            .find_map(|&(fi, line)| {
                let (file, lines) = &self.files[fi];
                lines.get(line as usize - 1)?;
                let entry = entry_at(lines, line as usize - 1);
                Some(PlanEntry {
                    file: file.clone(),
                    line: entry.0,
                    text: entry.1,
                })
            })
            .into_iter()
            .collect()
    }

    /// The entries a heading or a table row that names the case defines, in the
    /// order they stand; a heading whose section holds a deeper heading or row
    /// that names the case too (a suite `## backend / join` around its case
    /// `### join`) is that one's frame, not an entry of its own.
    fn defining(&self, case_id: &str) -> Vec<PlanEntry> {
        let Some(places) = self.index.get(case_id) else {
            return Vec::new();
        };
        let mut out: Vec<PlanEntry> = Vec::new();
        for &(fi, line) in places {
            let (file, lines) = &self.files[fi];
            let Some(l) = lines.get(line as usize - 1) else {
                continue;
            };
            if heading_level(l).is_none() && !l.trim_start().starts_with('|') {
                continue;
            }
            let entry = entry_at(lines, line as usize - 1);
            if !out.iter().any(|e| e.file == *file && e.line == entry.0) {
                out.push(PlanEntry {
                    file: file.clone(),
                    line: entry.0,
                    text: entry.1,
                });
            }
        }
        let encloses = |outer: &PlanEntry, inner: &PlanEntry| {
            let last = outer.line as usize + outer.text.lines().count();
            outer.file == inner.file && inner.line > outer.line && (inner.line as usize) < last
        };
        let keep: Vec<bool> = out
            .iter()
            .map(|e| !out.iter().any(|f| encloses(e, f)))
            .collect();
        out.into_iter()
            .zip(keep)
            .filter_map(|(e, k)| k.then_some(e))
            .collect()
    }

    /// The first entry that names the case.
    pub fn entry(&self, case_id: &str) -> Option<PlanEntry> {
        self.entries(case_id).into_iter().next()
    }

    /// The entry a heading or a table row that names the case defines: a mention
    /// in prose is no entry (`testdeck new` writes one then).
    pub fn defined(&self, case_id: &str) -> Option<PlanEntry> {
        self.defining(case_id).into_iter().next()
    }
}

fn heading_level(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let n = t.bytes().take_while(|&b| b == b'#').count();
    (n > 0 && n <= 6 && t[n..].starts_with([' ', '\t'])).then_some(n)
}

/// (1-based first line, text) of the entry around line index `i`.
fn entry_at(lines: &[String], i: usize) -> (u32, String) {
    let line = lines[i].as_str();
    if line.trim_start().starts_with('|') {
        // a table row: the table's header (first two rows) plus this row
        let mut start = i;
        while start > 0 && lines[start - 1].trim_start().starts_with('|') {
            start -= 1;
        }
        let mut text = String::new();
        if start + 1 < i {
            text.push_str(&lines[start]);
            text.push('\n');
            text.push_str(&lines[start + 1]);
            text.push('\n');
        }
        text.push_str(line);
        return (i as u32 + 1, text);
    }
    // a heading section: from the nearest heading at or above the line to the
    // next heading of the same or a higher level
    let Some(h) = (0..=i).rev().find(|&k| heading_level(&lines[k]).is_some()) else {
        return (i as u32 + 1, line.to_owned());
    };
    let level = heading_level(&lines[h]).unwrap_or(1);
    let end = (h + 1..lines.len())
        .find(|&k| heading_level(&lines[k]).is_some_and(|l| l <= level))
        .unwrap_or(lines.len());
    let text = lines[h..end].join("\n").trim_end().to_owned();
    (h as u32 + 1, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> TestPlan {
        TestPlan::from_files(vec![
            (
                "doc/test-plan/ai.md".into(),
                "# AI\n\n## terminal-basic-command\n\n- What: runs a command\n- Oracle: exit 0\n\n## other-case\n\ntext\n".into(),
            ),
            (
                "doc/test-plan/kb.md".into(),
                "| caseId | What |\n|---|---|\n| kb-search-basic | finds |\n| kb-empty | nothing |\n".into(),
            ),
        ])
    }

    #[test]
    fn registration_is_whole_word() {
        let p = plan();
        assert!(p.is_registered("terminal-basic-command"));
        assert!(!p.is_registered("terminal-basic"));
        assert!(p.is_registered("kb-empty"));
    }

    #[test]
    fn section_and_row_entries() {
        let p = plan();
        let e = p.entry("terminal-basic-command").expect("entry");
        assert_eq!(e.line, 3);
        assert_eq!(
            e.text,
            "## terminal-basic-command\n\n- What: runs a command\n- Oracle: exit 0"
        );
        assert_eq!(p.entries("terminal-basic-command").len(), 1);
        let r = p.entry("kb-empty").expect("row");
        assert_eq!(r.line, 4);
        assert_eq!(
            r.text,
            "| caseId | What |\n|---|---|\n| kb-empty | nothing |"
        );
    }

    #[test]
    fn a_suite_heading_named_as_its_case_frames_the_entry_and_is_none_itself() {
        let p = TestPlan::from_files(vec![(
            "doc/test-plan/url.md".into(),
            "# Url\n\n## backend / join\n\n### join\n- What: joins\n\n## backend / other\n\n### join\n- What: again\n".into(),
        )]);
        let all = p.entries("join");
        // the case's own headings, never the suite's around the first
        assert_eq!(all.iter().map(|e| e.line).collect::<Vec<_>>(), vec![5, 10]);
        assert_eq!(p.defined("join").map(|e| e.line), Some(5));
    }
}
