//! Fuzzy matching with fzf's query syntax (nucleo), shared by `list --filter` and the finder.

use crate::sanitize::escape;
use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
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

/// A text as the matcher reads it, prepared once: ASCII texts are matched as
/// their bytes (nucleo's ASCII path), others as the chars kept beside them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Haystack {
    text: String,
    /// The text's chars, for a text that is not ASCII.
    chars: Option<Box<[char]>>,
}

impl Haystack {
    /// `text`, prepared.
    pub fn new(text: String) -> Haystack {
        let chars = (!text.is_ascii()).then(|| text.chars().collect());
        Haystack { text, chars }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn utf32(&self) -> Utf32Str<'_> {
        match &self.chars {
            Some(c) => Utf32Str::Unicode(c),
            None => Utf32Str::Ascii(self.text.as_bytes()),
        }
    }
}

/// The indices of `items` (index, haystack) that match `q`, best first (equal
/// scores by index): the scores alone, no matched positions.
pub fn order<'a>(
    q: &mut Query,
    items: impl IntoIterator<Item = (usize, &'a Haystack)>,
) -> Vec<usize> {
    let mut scored: Vec<(u32, usize)> = items
        .into_iter()
        .filter_map(|(i, h)| q.score_haystack(h).map(|s| (s, i)))
        .collect();
    scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}

/// Whether every text `new` matches is a text `old` matches, so the answer to
/// `new` can be looked for among `old`'s matches alone (as a query is typed):
/// `new` extends `old`, which is not empty, and neither holds what can widen a
/// match as it grows (`!`, `|`, an escape), nor does `old` end in `$` (`ab$`
/// anchors, `ab$c` does not).
pub fn narrows(old: &str, new: &str) -> bool {
    let wide = |q: &str| q.contains(['!', '|', '\\']);
    !old.trim().is_empty() && new.starts_with(old) && !old.ends_with('$') && !wide(new)
}

/// A compiled query; an empty query matches everything. Words are and-ed; words
/// joined by a lone `|` are or-ed (fzf: `^core go$ | rb$` is `^core` and one of
/// `go$`, `rb$`); each word takes fzf's marks (`'exact`, `^prefix`, `suffix$`,
/// `!not`), as nucleo parses them.
pub struct Query {
    /// Each group must match; a group matches when one of its words does.
    groups: Vec<Vec<Word>>,
    matcher: Matcher,
    buf: Vec<char>,
}

/// One word of a query.
struct Word {
    atom: Atom,
    /// nucleo-matcher 0.3's case-sensitive exact/prefix/suffix test on an
    /// ASCII haystack compares the whole haystack instead of the matched range
    /// (`^TC-API` or `CLI$` never matched an ASCII line, but did when the line
    /// held a CJK title): such a word is matched against the text's chars.
    as_chars: bool,
}

impl Word {
    fn new(atom: Atom) -> Word {
        let anchored = matches!(
            atom.kind,
            AtomKind::Exact | AtomKind::Prefix | AtomKind::Postfix
        );
        // smart case: a needle with a capital letter matches case-sensitively;
        // a needle that is not ASCII is matched as chars as before
        let needle = atom.needle_text();
        let as_chars = anchored && (!needle.is_ascii() || needle.chars().any(char::is_uppercase));
        Word { atom, as_chars }
    }

    /// The haystack this word reads: `h`, or its chars in `buf`.
    fn haystack<'a>(&self, h: Utf32Str<'a>, buf: &'a mut Vec<char>) -> Utf32Str<'a> {
        match h {
            Utf32Str::Ascii(bytes) if self.as_chars => {
                buf.clear();
                buf.extend(bytes.iter().map(|&b| char::from(b)));
                Utf32Str::Unicode(buf)
            }
            h => h,
        }
    }
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
        let mut groups: Vec<Vec<Word>> = Vec::new();
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
            let word = Word::new(atom);
            match groups.last_mut() {
                Some(g) if join => g.push(word),
                _ => groups.push(vec![word]),
            }
            join = false;
        }
        Query {
            groups,
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
            buf: Vec::new(),
        }
    }

    /// The score of `haystack`, `None` when it does not match.
    pub fn score(&mut self, haystack: &str) -> Option<u32> {
        if haystack.is_ascii() {
            self.score_utf32(Utf32Str::Ascii(haystack.as_bytes()))
        } else {
            let chars: Vec<char> = haystack.chars().collect();
            self.score_utf32(Utf32Str::Unicode(&chars))
        }
    }

    /// The score of a prepared text, `None` when it does not match.
    pub fn score_haystack(&mut self, h: &Haystack) -> Option<u32> {
        self.score_utf32(h.utf32())
    }

    fn score_utf32(&mut self, h: Utf32Str<'_>) -> Option<u32> {
        let mut total = 0;
        for g in &self.groups {
            let mut best = None;
            for w in g {
                let s = w
                    .atom
                    .score(w.haystack(h, &mut self.buf), &mut self.matcher);
                best = best.max(s);
            }
            total += u32::from(best?);
        }
        Some(total)
    }

    /// The score and the matched character positions (for highlighting).
    pub(crate) fn indices(&mut self, haystack: &str, out: &mut Vec<u32>) -> Option<u32> {
        if haystack.is_ascii() {
            self.indices_utf32(Utf32Str::Ascii(haystack.as_bytes()), out)
        } else {
            let chars: Vec<char> = haystack.chars().collect();
            self.indices_utf32(Utf32Str::Unicode(&chars), out)
        }
    }

    /// The matched character positions of a prepared text, sorted (empty when
    /// it does not match): for the rows drawn, after [`order`] ranked them.
    pub fn positions(&mut self, h: &Haystack, out: &mut Vec<u32>) {
        if self.indices_utf32(h.utf32(), out).is_none() {
            out.clear();
        }
    }

    fn indices_utf32(&mut self, h: Utf32Str<'_>, out: &mut Vec<u32>) -> Option<u32> {
        out.clear();
        let mut total = 0;
        let mut mine = Vec::new();
        for g in &self.groups {
            // the best word of the group is the one highlighted
            let mut best: Option<(u16, Vec<u32>)> = None;
            for w in g {
                mine.clear();
                let hay = w.haystack(h, &mut self.buf);
                if let Some(s) = w.atom.indices(hay, &mut self.matcher, &mut mine) {
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
        // a substring whose first letter comes earlier in the line too (the
        // chars path nucleo 0.3 takes for a text that is not ASCII missed it)
        assert!(Query::new("!a-").score("/.a1a-").is_none());
        assert!(Query::new("'a-").score("/.a1a-").is_some());
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

    /// Texts and queries drawn from a small alphabet with every mark of the
    /// syntax, capitals and a non-ASCII letter.
    fn random_text(rng: &mut fastrand::Rng, alphabet: &[char], len: usize) -> String {
        (0..rng.usize(0..len))
            .map(|_| alphabet[rng.usize(..alphabet.len())])
            .collect()
    }

    #[test]
    fn prepared_texts_score_as_plain_ones_and_narrowing_finds_what_a_full_scan_finds() {
        let text_chars: Vec<char> = "abcAB-/ .é12$'^".chars().collect();
        let query_chars: Vec<char> = "abcAB-/ é1$'^!|\\".chars().collect();
        for seed in 0..300 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let texts: Vec<String> = (0..60)
                .map(|_| random_text(&mut rng, &text_chars, 14))
                .collect();
            let hays: Vec<Haystack> = texts.iter().cloned().map(Haystack::new).collect();
            let all = || hays.iter().enumerate();
            let (mut typed, mut found): (String, Option<Vec<usize>>) = (String::new(), None);
            for _ in 0..8 {
                let old = typed.clone();
                typed.push(query_chars[rng.usize(..query_chars.len())]);
                let mut q = Query::new(&typed);
                let full = order(&mut q, all());
                // the same order as rank over the plain texts
                let ranked: Vec<usize> = rank(&typed, texts.iter().map(String::as_str))
                    .into_iter()
                    .map(|r| r.0)
                    .collect();
                assert_eq!(full, ranked, "seed {seed}, query {typed:?}");
                if let Some(prev) = found.as_ref().filter(|_| narrows(&old, &typed)) {
                    let narrowed = order(&mut q, prev.iter().map(|&i| (i, &hays[i])));
                    assert_eq!(narrowed, full, "seed {seed}, {old:?} then {typed:?}");
                }
                for &i in &full {
                    let mut at = Vec::new();
                    q.positions(&hays[i], &mut at);
                    let mut want = Vec::new();
                    assert!(q.indices(&texts[i], &mut want).is_some());
                    assert_eq!(
                        at, want,
                        "seed {seed}, query {typed:?}, text {:?}",
                        texts[i]
                    );
                }
                found = Some(full);
            }
        }
    }

    #[test]
    fn a_query_narrows_only_as_it_grows_without_widening_marks() {
        assert!(narrows("ca", "cas"));
        assert!(narrows("case", "case 1"));
        assert!(narrows("^ca", "^ca$"));
        assert!(!narrows("", "a"));
        assert!(!narrows("ca", "c"));
        assert!(!narrows("!a", "!ab"));
        assert!(!narrows("a", "a | b"));
        assert!(!narrows("ab$", "ab$c"));
        assert!(!narrows("a\\", "a\\ b"));
    }
}
