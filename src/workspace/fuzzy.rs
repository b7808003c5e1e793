//! Fuzzy matching with fzf's query syntax (nucleo), shared by `list --filter` and the finder.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// A compiled query; an empty query matches everything.
pub struct Query {
    pattern: Pattern,
    matcher: Matcher,
    buf: Vec<char>,
}

impl Query {
    pub fn new(q: &str) -> Query {
        Query {
            pattern: Pattern::parse(q, CaseMatching::Smart, Normalization::Smart),
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
            buf: Vec::new(),
        }
    }

    /// The score of `haystack`, `None` when it does not match.
    pub fn score(&mut self, haystack: &str) -> Option<u32> {
        if self.pattern.atoms.is_empty() {
            return Some(0);
        }
        let h = Utf32Str::new(haystack, &mut self.buf);
        self.pattern.score(h, &mut self.matcher)
    }

    /// The score and the matched character positions (for highlighting).
    pub fn indices(&mut self, haystack: &str, out: &mut Vec<u32>) -> Option<u32> {
        out.clear();
        if self.pattern.atoms.is_empty() {
            return Some(0);
        }
        let h = Utf32Str::new(haystack, &mut self.buf);
        let s = self.pattern.indices(h, &mut self.matcher, out);
        out.sort_unstable();
        out.dedup();
        s
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
    }
}
