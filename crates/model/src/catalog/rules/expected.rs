//! Rules on expectations: a case says what it expects, in terms its driver can judge.

use super::{CaseOut, Cx};
use crate::catalog::{Case, Driver, ExpectedKind};

/// `expected-missing`: `expected` is written but empty.
pub(super) fn expected_missing(_: &Cx, c: &Case, out: &mut CaseOut) {
    if c.expected.is_empty() && c.locs.contains_key("expected") {
        out.emit(
            "expected",
            "expected-missing",
            "expected needs at least one {kind, value}",
        );
    }
}

/// `expected-driver` (a warning): a browser or mobile case is judged by what is
/// seen, not by an API answer or an exit code.
pub(super) fn expected_driver(_: &Cx, c: &Case, out: &mut CaseOut) {
    if !matches!(c.driver, Some(Driver::Browser | Driver::Mobile)) {
        return;
    }
    for (i, e) in c.expected.iter().enumerate() {
        if let Some(
            k @ (ExpectedKind::ApiStatus | ExpectedKind::ApiField | ExpectedKind::ScriptExit),
        ) = e.kind
        {
            out.emit(
                &format!("expected.{i}.kind"),
                "expected-driver",
                format!(
                    "a {} case is judged by what is seen (visible-text, url, interaction), not {k}",
                    c.driver.map_or("", Driver::as_str)
                ),
            );
        }
    }
}
