//! A static read of a JavaScript / TypeScript config file: its object literals
//! with their string and array values, and nothing run. What is not a literal
//! (a variable, a call, a template with `${}`) reads as [`Value::Code`], so a
//! caller knows where a static read cannot be sure.

/// A value of an object literal, as far as a static read sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string literal (or a template without `${}`).
    Str(String),
    /// An array literal.
    List(Vec<Value>),
    /// An object literal: its keys and values, in order.
    Object(Vec<(String, Value)>),
    /// A regex literal (its source).
    Regex(String),
    /// A spread (`...name.path`) in an array or object.
    Spread(String),
    /// Anything else (a name, a call, a number): its first word.
    Code(String),
}

impl Value {
    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Regex(String),
    /// A template with `${…}` in it.
    Template,
    Word(String),
    Punct(char),
    Spread,
}

#[expect(
    clippy::too_many_lines,
    reason = "a hand-written tokenizer: one loop, one arm per token class"
)]
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // a `/` starts a regex after these (or at the start), a division after the rest
    let regex_may_start = |out: &Vec<Tok>| match out.last() {
        None => true,
        Some(Tok::Punct(p)) => "([{,:;=!&|?+-*%<>~^".contains(*p),
        Some(Tok::Word(w)) => matches!(w.as_str(), "return" | "typeof" | "case"),
        _ => false,
    };
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if ch == '"' || ch == '\'' {
            let mut s = String::new();
            i += 1;
            while i < c.len() && c[i] != ch && c[i] != '\n' {
                if c[i] == '\\' && i + 1 < c.len() {
                    i += 1;
                }
                s.push(c[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if ch == '`' {
            let mut s = String::new();
            let mut interpolated = false;
            let mut depth = 0usize;
            i += 1;
            while i < c.len() {
                if depth == 0 && c[i] == '`' {
                    break;
                }
                if c[i] == '\\' && i + 1 < c.len() {
                    i += 1;
                } else if c[i] == '$' && c.get(i + 1) == Some(&'{') {
                    interpolated = true;
                    depth += 1;
                    i += 2;
                    continue;
                } else if depth > 0 && c[i] == '}' {
                    depth -= 1;
                    i += 1;
                    continue;
                }
                if depth == 0 {
                    s.push(c[i]);
                }
                i += 1;
            }
            i += 1;
            out.push(if interpolated {
                Tok::Template
            } else {
                Tok::Str(s)
            });
        } else if ch == '/' && regex_may_start(&out) {
            let mut s = String::new();
            let mut class = false;
            i += 1;
            while i < c.len() && c[i] != '\n' && (class || c[i] != '/') {
                if c[i] == '\\' && i + 1 < c.len() {
                    s.push(c[i]);
                    i += 1;
                } else if c[i] == '[' {
                    class = true;
                } else if c[i] == ']' {
                    class = false;
                }
                s.push(c[i]);
                i += 1;
            }
            i += 1;
            while i < c.len() && c[i].is_ascii_alphabetic() {
                i += 1; // flags
            }
            out.push(Tok::Regex(s));
        } else if ch == '.' && c.get(i + 1) == Some(&'.') && c.get(i + 2) == Some(&'.') {
            out.push(Tok::Spread);
            i += 3;
        } else if ch.is_alphanumeric() || ch == '_' || ch == '$' {
            let mut w = String::new();
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || c[i] == '$') {
                w.push(c[i]);
                i += 1;
            }
            out.push(Tok::Word(w));
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

struct Parser {
    t: Vec<Tok>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }

    /// Skip one expression up to a `,` or a closing bracket at its own depth.
    fn skip_expr(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            match t {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}' | ',' | ';') if depth == 0 => return,
                Tok::Punct(')' | ']' | '}') => depth -= 1,
                _ => {}
            }
            self.i += 1;
        }
    }

    /// A dotted name (`configDefaults.exclude`) from here.
    fn dotted(&mut self) -> String {
        let mut s = String::new();
        while let Some(Tok::Word(w)) = self.peek() {
            s.push_str(w);
            self.i += 1;
            if self.peek() == Some(&Tok::Punct('.')) {
                s.push('.');
                self.i += 1;
            } else {
                break;
            }
        }
        s
    }

    fn value(&mut self) -> Value {
        let start = self.i;
        let v = match self.peek().cloned() {
            Some(Tok::Punct('{')) => {
                self.i += 1;
                self.object()
            }
            Some(Tok::Punct('[')) => {
                self.i += 1;
                self.list()
            }
            Some(Tok::Str(s)) => {
                self.i += 1;
                Value::Str(s)
            }
            Some(Tok::Regex(s)) => {
                self.i += 1;
                Value::Regex(s)
            }
            Some(Tok::Word(w)) => Value::Code(w),
            _ => Value::Code(String::new()),
        };
        // a literal followed by more (`'a' + b`, `x as const` aside) is code
        match self.peek() {
            Some(Tok::Punct(',' | ';' | ')' | ']' | '}')) | None => v,
            Some(Tok::Word(w)) if w == "as" || w == "satisfies" => {
                self.skip_expr();
                v
            }
            _ => {
                self.i = start;
                let first = match self.peek() {
                    Some(Tok::Word(w)) => w.clone(),
                    _ => String::new(),
                };
                self.skip_expr();
                Value::Code(first)
            }
        }
    }

    fn list(&mut self) -> Value {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                None => break,
                Some(Tok::Punct(']')) => {
                    self.i += 1;
                    break;
                }
                Some(Tok::Punct(',')) => self.i += 1,
                Some(Tok::Spread) => {
                    self.i += 1;
                    let name = self.dotted();
                    self.skip_expr();
                    items.push(Value::Spread(name));
                }
                Some(_) => {
                    let before = self.i;
                    items.push(self.value());
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
        Value::List(items)
    }

    fn object(&mut self) -> Value {
        let mut entries = Vec::new();
        loop {
            match self.peek().cloned() {
                None => break,
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    break;
                }
                Some(Tok::Punct(',')) => self.i += 1,
                Some(Tok::Spread) => {
                    self.i += 1;
                    let name = self.dotted();
                    self.skip_expr();
                    entries.push((String::new(), Value::Spread(name)));
                }
                Some(Tok::Word(k) | Tok::Str(k)) => {
                    self.i += 1;
                    if self.peek() == Some(&Tok::Punct(':')) {
                        self.i += 1;
                        let before = self.i;
                        let v = self.value();
                        if self.i == before {
                            self.i += 1;
                        }
                        entries.push((k, v));
                    } else {
                        // a shorthand property or a method: code
                        self.skip_expr();
                        entries.push((k.clone(), Value::Code(k)));
                    }
                }
                Some(_) => {
                    let before = self.i;
                    self.skip_expr();
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
        Value::Object(entries)
    }
}

/// Every outermost object literal of `src`, in order (nested ones are inside
/// their parent's value).
pub fn objects(src: &str) -> Vec<Value> {
    let mut p = Parser {
        t: tokens(src),
        i: 0,
    };
    let mut out = Vec::new();
    while let Some(t) = p.peek() {
        if *t == Tok::Punct('{') {
            p.i += 1;
            out.push(p.object());
        } else {
            p.i += 1;
        }
    }
    out
}

/// The config object of a file: the first outermost object holding one of `keys`.
pub fn config_object(src: &str, keys: &[&str]) -> Option<Value> {
    objects(src)
        .into_iter()
        .find(|o| keys.iter().any(|k| o.get(k).is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_read_and_code_is_said() {
        let src = r#"
import { defineConfig, configDefaults } from 'vitest/config';
const x = 3 / 2; // a division, not a regex
export default defineConfig({
  resolve: { alias: { _: fileURLToPath(new URL('./src', import.meta.url)) } },
  test: {
    include: ['src/**/*.test.ts', "lib/**/*.spec.ts"],
    exclude: [...configDefaults.exclude, 'src/e2e/**'],
    dir: `./src`,
    root: someVar,
  },
});
"#;
        let cfg = config_object(src, &["test"]).expect("config");
        let test = cfg.get("test").expect("test");
        assert_eq!(
            test.get("include"),
            Some(&Value::List(vec![
                Value::Str("src/**/*.test.ts".into()),
                Value::Str("lib/**/*.spec.ts".into())
            ]))
        );
        assert_eq!(
            test.get("exclude"),
            Some(&Value::List(vec![
                Value::Spread("configDefaults.exclude".into()),
                Value::Str("src/e2e/**".into())
            ]))
        );
        assert_eq!(test.get("dir"), Some(&Value::Str("./src".into())));
        assert_eq!(test.get("root"), Some(&Value::Code("someVar".into())));
    }

    #[test]
    fn playwright_config_with_regex_and_templates() {
        let src = r"
const port = Number(process.env.TEST_PORT ?? 4173);
export default defineConfig({
  testDir: './e2e',
  testMatch: /.*\.e2e\.ts/,
  use: { baseURL: `http://127.0.0.1:${port}` },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
  outputDir: 'tests/test-results',
});
";
        let cfg = config_object(src, &["testDir", "projects"]).expect("config");
        assert_eq!(cfg.get("testDir"), Some(&Value::Str("./e2e".into())));
        assert_eq!(
            cfg.get("testMatch"),
            Some(&Value::Regex(r".*\.e2e\.ts".into()))
        );
        assert_eq!(
            cfg.get("outputDir"),
            Some(&Value::Str("tests/test-results".into()))
        );
        let Some(Value::List(projects)) = cfg.get("projects") else {
            panic!("projects")
        };
        assert_eq!(
            projects[0].get("name"),
            Some(&Value::Str("chromium".into()))
        );
    }

    #[test]
    fn broken_text_reads_without_a_panic() {
        for src in [
            "{",
            "{a:",
            "{a: [",
            "`${",
            "/",
            "{a: 'x",
            "[...",
            "{...",
            "{ a() { return 1 } }",
        ] {
            let _ = objects(src);
        }
    }
}
