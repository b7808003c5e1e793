//! The globs a project's test configs use (and `[outside]` / `[watch]` take) (vitest's `include`, Playwright's
//! `testMatch`): `**` any folders, `*` and `?` within a name, `[…]` classes,
//! `{a,b}` alternatives and the extglobs `?(…)`, `@(…)`, `*(…)`, `+(…)`, read
//! into one anchored regex over a `/`-separated path relative to the root.

/// A compiled glob.
#[derive(Debug, Clone)]
pub struct Glob {
    re: regex::Regex,
}

impl Glob {
    /// The glob `pattern` (a leading `./` ignored); `None` for what it cannot
    /// read (`!(…)`, an unclosed group or class).
    pub fn new(pattern: &str) -> Option<Glob> {
        let re = regex::Regex::new(&to_regex(pattern)?).ok()?;
        Some(Glob { re })
    }

    /// Whether the relative path `path` (with `/`) matches.
    pub fn matches(&self, path: &str) -> bool {
        self.re.is_match(path)
    }
}

/// The regex of a glob, `None` when it holds what a static read does not take.
fn to_regex(pattern: &str) -> Option<String> {
    let mut p = pattern;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::from("^");
    // open groups: '{' for alternatives, else the extglob operator
    let mut groups: Vec<char> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '*' if next == Some('*') => {
                let seg_start = i == 0 || chars[i - 1] == '/';
                let after = chars.get(i + 2).copied();
                if seg_start && after.is_none() {
                    out.push_str(".*");
                    i += 2;
                } else if seg_start && after == Some('/') {
                    out.push_str("(?:[^/]*/)*");
                    i += 3;
                } else {
                    out.push_str("[^/]*");
                    i += 2;
                }
                continue;
            }
            '?' | '@' | '*' | '+' if next == Some('(') => {
                groups.push(c);
                out.push_str("(?:");
                i += 2;
                continue;
            }
            '!' if next == Some('(') => return None,
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                let close = chars[i + 1..].iter().position(|&x| x == ']')? + i + 1;
                let mut class: String = chars[i + 1..close].iter().collect();
                if let Some(rest) = class.strip_prefix('!') {
                    class = format!("^{rest}");
                }
                out.push('[');
                out.push_str(&class.replace('\\', "\\\\").replace('[', "\\["));
                out.push(']');
                i = close + 1;
                continue;
            }
            '{' => {
                groups.push('{');
                out.push_str("(?:");
            }
            ',' if groups.last() == Some(&'{') => out.push('|'),
            '}' if groups.last() == Some(&'{') => {
                groups.pop();
                out.push(')');
            }
            '|' if groups.last().is_some_and(|g| *g != '{') => out.push('|'),
            ')' if groups.last().is_some_and(|g| *g != '{') => {
                let op = groups.pop()?;
                out.push(')');
                match op {
                    '?' => out.push('?'),
                    '*' => out.push('*'),
                    '+' => out.push('+'),
                    _ => {}
                }
            }
            _ => out.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    if !groups.is_empty() {
        return None;
    }
    out.push('$');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(g: &str, p: &str) -> bool {
        Glob::new(g).expect("glob").matches(p)
    }

    #[test]
    fn the_frameworks_defaults_read() {
        let vitest = "**/*.{test,spec}.?(c|m)[jt]s?(x)";
        for p in [
            "a.test.ts",
            "test/url.test.ts",
            "src/x/y.spec.tsx",
            "b.test.mjs",
        ] {
            assert!(m(vitest, p), "{p}");
        }
        for p in ["a.ts", "a.test.rs", "a.test.xts", "test.ts"] {
            assert!(!m(vitest, p), "{p}");
        }
        let pw = "**/*.@(spec|test).?(c|m)[jt]s?(x)";
        assert!(m(pw, "e2e/search.spec.ts"));
        assert!(m("**/node_modules/**", "node_modules/a/b.test.ts"));
        assert!(m("**/node_modules/**", "x/node_modules/a.test.ts"));
        assert!(m("**/.{idea,git,cache}/**", ".git/x.test.ts"));
        assert!(!m("**/.{idea,git,cache}/**", "git/x.test.ts"));
    }

    #[test]
    fn folders_names_and_classes() {
        assert!(m("./src/**/*.test.ts", "src/a.test.ts"));
        assert!(m("src/**/*.test.ts", "src/lib/a/b.test.ts"));
        assert!(!m("src/**/*.test.ts", "srcx/a.test.ts"));
        assert!(!m("src/*.test.ts", "src/a/b.test.ts"));
        assert!(m("src/e2e/**", "src/e2e/search.spec.ts"));
        assert!(m("t/[!x]?.ts", "t/ab.ts"));
        assert!(!m("t/[!x]?.ts", "t/xb.ts"));
        assert!(Glob::new("!(a).ts").is_none());
        assert!(Glob::new("{a,b").is_none());
        assert!(Glob::new("[ab").is_none());
    }
}
