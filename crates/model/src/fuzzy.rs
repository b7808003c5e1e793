//! Fuzzy matching with fzf's query syntax (nucleo), shared by `list --filter` and the finder.

use crate::sanitize::escape;
use nucleo_matcher::pattern::{Atom, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// What a tests-tree case (or an orphan) is matched by: its caseId and its path.
/// The finder and `list --filter` both match this text (sanitized, as shown), so
/// the same query gives the same cases.
pub fn tests_text(case_id: &str, path: &str) -> String {
    escape(&format!("{case_id}  {path}")).into_owned()
}

/// What a catalog case is matched by: its id, title and category (not the file it
/// is written in: every case of a file would match the file's name).
pub fn catalog_text(id: &str, title: &str, category: &str) -> String {
    escape(&format!("{id}  {title}  {category}")).into_owned()
}

/// The positions in `texts` that match `query`, best first (equal scores keep
/// their order), each with its matched character positions.
pub fn rank<'a>(query: &str, texts: impl IntoIterator<Item = &'a str>) -> Vec<(usize, Vec<u32>)> {
    let mut q = Query::new(query);
    let mut buf = Vec::new();
    let mut scored: Vec<(u32, usize, Vec<u32>)> = Vec::new();
    for (i, t) in texts.into_iter().enumerate() {
        if let Some(s) = q.indices(t, &mut buf) {
            scored.push((s, i, buf.clone()));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i, ix)| (i, ix)).collect()
}

/// A compiled query; an empty query matches everything. Words are and-ed; words
/// joined by a lone `|` are or-ed (fzf: `^core go$ | rb$` is `^core` and one of
/// `go$`, `rb$`); each word takes fzf's marks (`'exact`, `^prefix`, `suffix$`,
/// `!not`), as nucleo parses them.
pub struct Query {
    /// Each group must match; a group matches when one of its words does.
    groups: Vec<Vec<Atom>>,
    matcher: Matcher,
    buf: Vec<char>,
}

/// The words of a query: split at spaces that are not escaped with `\`.
fn words(q: &str) -> impl Iterator<Item = &str> {
    let mut escaped = false;
    q.split(move |c| {
        let split = c == ' ' && !escaped;
        escaped = c == '\\';
        split
    })
    .filter(|w| !w.is_empty())
}

impl Query {
    /// The query `q`: words split on unescaped spaces, each matched fuzzily.
    pub fn new(q: &str) -> Query {
        let mut groups: Vec<Vec<Atom>> = Vec::new();
        let mut join = false;
        for w in words(q) {
            if w == "|" {
                join = true;
                continue;
            }
            let atom = Atom::parse(w, CaseMatching::Smart, Normalization::Smart);
            if atom.needle_text().is_empty() {
                continue;
            }
            match groups.last_mut() {
                Some(g) if join => g.push(atom),
                _ => groups.push(vec![atom]),
            }
            join = false;
        }
        Query {
            groups,
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
            buf: Vec::new(),
        }
    }

    /// `haystack` as nucleo matches it: always as chars. nucleo-matcher 0.3's
    /// case-sensitive exact/prefix/suffix test on an ASCII haystack compares the
    /// whole haystack instead of the matched range, so `^TC-API` or `CLI$` never
    /// matched an ASCII line (but did when the line held a CJK title).
    fn chars<'a>(buf: &'a mut Vec<char>, haystack: &str) -> Utf32Str<'a> {
        buf.clear();
        buf.extend(haystack.chars());
        Utf32Str::Unicode(buf)
    }

    /// The score of `haystack`, `None` when it does not match.
    pub fn score(&mut self, haystack: &str) -> Option<u32> {
        let h = Self::chars(&mut self.buf, haystack);
        let mut total = 0;
        for g in &self.groups {
            total += g
                .iter()
                .filter_map(|a| a.score(h, &mut self.matcher))
                .max()
                .map(u32::from)?;
        }
        Some(total)
    }

    /// The score and the matched character positions (for highlighting).
    pub(crate) fn indices(&mut self, haystack: &str, out: &mut Vec<u32>) -> Option<u32> {
        out.clear();
        let h = Self::chars(&mut self.buf, haystack);
        let mut total = 0;
        let mut mine = Vec::new();
        for g in &self.groups {
            // the best word of the group is the one highlighted
            let mut best: Option<(u16, Vec<u32>)> = None;
            for a in g {
                mine.clear();
                if let Some(s) = a.indices(h, &mut self.matcher, &mut mine) {
                    if best.as_ref().is_none_or(|b| s > b.0) {
                        best = Some((s, mine.clone()));
                    }
                }
            }
            let (s, ix) = best?;
            total += u32::from(s);
            out.extend(ix);
        }
        out.sort_unstable();
        out.dedup();
        Some(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fzf_syntax() {
        let mut q = Query::new("term cmd");
        assert!(
            q.score("ai/backend/tools/terminal/terminal-basic-command")
                .is_some()
        );
        assert!(q.score("kb/search").is_none());
        let mut neg = Query::new("term !live");
        assert!(neg.score("ai/terminal/live/x").is_none());
        assert!(neg.score("ai/terminal/basic/x").is_some());
        let mut exact = Query::new("'kb-e");
        assert!(exact.score("kb-empty").is_some());
        assert!(Query::new("").score("anything").is_some());
        let mut or = Query::new("^kb | ^TC-API .sh$");
        assert!(or.score("kb-x  tests/kb/kb-x.sh").is_some());
        assert!(or.score("TC-API-1  t.sh").is_some());
        assert!(or.score("TC-API-1  t.yaml").is_none());
        assert!(or.score("web  tests/kb.sh").is_none());
        // case-sensitive anchors on an ASCII line (nucleo 0.3 missed these)
        assert!(Query::new("^TC-API").score("TC-API-1  t.sh").is_some());
        assert!(
            Query::new("CLI$")
                .score("TC-CLI-001  README  CLI")
                .is_some()
        );
        assert!(
            Query::new("'README")
                .score("TC-CLI-001  README  CLI")
                .is_some()
        );
        let mut esc = Query::new("a\\ b");
        assert!(esc.score("xa bx").is_some());
        assert!(esc.score("ab").is_none());
    }

    #[test]
    fn rank_orders_best_first_and_anchors_on_the_last_field() {
        let texts = [
            catalog_text("TC-CLI-001", "README", "CLI"),
            catalog_text("TC-KB-001", "search", "KB"),
            tests_text("cli-basic", "tests/cli/cli-basic.test.sh"),
        ];
        let hits = rank("CLI$", texts.iter().map(String::as_str));
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [0]);
        let hits = rank("cli", texts.iter().map(String::as_str));
        assert_eq!(hits.len(), 2);
        assert!(rank("", texts.iter().map(String::as_str)).len() == 3);
    }
}
