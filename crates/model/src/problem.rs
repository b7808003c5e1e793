//! Located problems: what `validate` reports and what loading collects instead of failing.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a problem is: errors make `validate` exit 1, warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Breaks a rule of the contract: `validate` exits 1.
    Error,
    /// Worth a look, but the workspace is still usable.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One problem at one place. `file` is relative to the workspace root with `/`;
/// `line` and `column` are 1-based and `None` where the input has no place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The file, relative to the workspace root, with `/`.
    pub file: String,
    /// 1-based line, `None` where the input has no place.
    pub line: Option<u32>,
    /// 1-based column, `None` where the input has no place.
    pub column: Option<u32>,
    /// Error or warning.
    pub severity: Severity,
    /// The rule broken, a short kebab-case name (what `validate` prints).
    pub rule: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Problem {
    /// An error-level problem of `file` with no line or column yet.
    pub fn error(file: impl Into<String>, rule: &str, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line: None,
            column: None,
            severity: Severity::Error,
            rule: rule.to_owned(),
            message: message.into(),
        }
    }

    /// A warning-level problem of `file` with no line or column yet.
    pub fn warning(file: impl Into<String>, rule: &str, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(file, rule, message)
        }
    }

    /// Place the problem at a 1-based line and column (0 means unknown).
    #[must_use]
    pub fn at(mut self, line: u32, column: u32) -> Self {
        self.line = (line > 0).then_some(line);
        self.column = (column > 0).then_some(column);
        self
    }

    /// Place the problem at a line only.
    #[must_use]
    pub fn at_line(mut self, line: u32) -> Self {
        self.line = (line > 0).then_some(line);
        self
    }

    /// Whether it is an error (then `validate` exits 1).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Problem {
    /// `file:line:col severity rule message`, the form every editor can jump to.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::sanitize::escape(&self.file))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(
            f,
            " {} {} {}",
            self.severity,
            self.rule,
            crate::sanitize::escape(&self.message)
        )
    }
}

/// Sort problems by file, then place, then rule, so output is stable.
pub fn sort(problems: &mut [Problem]) {
    problems.sort_by(|a, b| {
        (
            a.file.as_str(),
            a.line,
            a.column,
            a.rule.as_str(),
            a.message.as_str(),
        )
            .cmp(&(
                b.file.as_str(),
                b.line,
                b.column,
                b.rule.as_str(),
                b.message.as_str(),
            ))
    });
}
