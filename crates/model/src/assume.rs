//! The `assume` grammar: `NAME`, `!NAME`, `NAME == value`, `NAME != value` joined by
//! `&&`, evaluated against an environment (false ⇒ the case is `skipped`).

use super::vars::{Env, is_name};

/// An `assume` expression: terms joined by `&&`; false ⇒ the case is `skipped`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assume {
    /// The terms, all of which must hold.
    pub terms: Vec<Term>,
}

/// One term of an [`Assume`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// `NAME`: set, not empty, and not `false`/`0`/`no`/`off`.
    Set(String),
    /// `!NAME`: the opposite.
    Unset(String),
    /// `NAME == value` (an unset variable is the empty text).
    Eq(String, String),
    /// `NAME != value`.
    Ne(String, String),
}

impl Term {
    /// The variable the term tests.
    pub(crate) fn name(&self) -> &str {
        match self {
            Term::Set(n) | Term::Unset(n) | Term::Eq(n, _) | Term::Ne(n, _) => n,
        }
    }
}

impl Assume {
    /// Parse `NAME`, `!NAME`, `NAME == value`, `NAME != value` joined by `&&`.
    /// Values may be quoted with `'` or `"`.
    pub fn parse(s: &str) -> Result<Assume, String> {
        if s.trim().is_empty() {
            return Err("empty expression".to_owned());
        }
        if s.contains("||") {
            return Err("`||` is not supported: terms are joined by `&&` only".to_owned());
        }
        let mut terms = Vec::new();
        for raw in s.split("&&") {
            let t = raw.trim();
            if t.is_empty() {
                return Err(format!("empty term in {s:?}"));
            }
            let term = if let Some((n, v)) = t.split_once("!=") {
                Term::Ne(name(n)?, value(v)?)
            } else if let Some((n, v)) = t.split_once("==") {
                Term::Eq(name(n)?, value(v)?)
            } else if let Some(n) = t.strip_prefix('!') {
                Term::Unset(name(n)?)
            } else {
                Term::Set(name(t)?)
            };
            terms.push(term);
        }
        Ok(Assume { terms })
    }

    /// Every variable named.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(Term::name)
    }

    /// True when every term holds in `env`.
    pub fn eval(&self, env: Env) -> bool {
        self.terms.iter().all(|t| match t {
            Term::Set(n) => truthy(env(n).as_deref()),
            Term::Unset(n) => !truthy(env(n).as_deref()),
            Term::Eq(n, v) => env(n).unwrap_or_default() == *v,
            Term::Ne(n, v) => env(n).unwrap_or_default() != *v,
        })
    }
}

fn truthy(v: Option<&str>) -> bool {
    v.is_some_and(|v| {
        let v = v.trim();
        !v.is_empty() && !["false", "0", "no", "off"].contains(&v.to_ascii_lowercase().as_str())
    })
}

fn name(s: &str) -> Result<String, String> {
    let n = s.trim();
    if is_name(n) {
        Ok(n.to_owned())
    } else {
        Err(format!("{n:?} is not a variable name"))
    }
}

fn value(s: &str) -> Result<String, String> {
    let v = s.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| v.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)));
    match unquoted {
        Some(u) => Ok(u.to_owned()),
        None if v.is_empty() => Err("missing value after the comparison".to_owned()),
        None if v.contains(['=', '!', '"', '\'']) => Err(format!("{v:?} is not a value")),
        None => Ok(v.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assume_grammar() {
        let a = Assume::parse("FEATURE_X && !SKIP_SLOW && MODE == 'full' && REGION != cn")
            .expect("parses");
        assert_eq!(a.terms.len(), 4);
        assert_eq!(
            a.names().collect::<Vec<_>>(),
            ["FEATURE_X", "SKIP_SLOW", "MODE", "REGION"]
        );
        let env = |n: &str| match n {
            "FEATURE_X" => Some("1".to_owned()),
            "MODE" => Some("full".to_owned()),
            _ => None,
        };
        assert!(a.eval(&env));
        let env2 = |n: &str| match n {
            "FEATURE_X" => Some("false".to_owned()),
            "MODE" => Some("full".to_owned()),
            _ => None,
        };
        assert!(!a.eval(&env2));
        assert!(
            Assume::parse("A == \"x y\"")
                .expect("quoted")
                .eval(&|_| Some("x y".into()))
        );
        for bad in [
            "",
            "A ||B",
            "A &&",
            "1A",
            "A == ",
            "A == b == c",
            "a-b",
            "!!A",
        ] {
            assert!(Assume::parse(bad).is_err(), "{bad}");
        }
    }
}
