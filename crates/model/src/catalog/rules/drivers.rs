//! Rules on how a case runs: automation and driver, sessions, `how`, and the
//! mobile artifacts a driver installs.

use super::{CaseOut, Cx, Out};
use crate::catalog::{Automation, Case, Driver, ExpectedKind, MANUAL_STEP, SessionKind};

/// The case's automation, `automated` when unset.
fn automation(c: &Case) -> Automation {
    c.automation.unwrap_or(Automation::Automated)
}

/// `driver-manual`: a manual case takes no driver.
pub(super) fn driver_manual(_: &Cx, c: &Case, out: &mut CaseOut) {
    if automation(c) == Automation::Manual && c.driver.is_some() {
        out.emit(
            "driver",
            "driver-manual",
            "automation manual takes no driver",
        );
    }
}

/// `session-required`: a browser or mobile case names a session.
pub(super) fn session_required(_: &Cx, c: &Case, out: &mut CaseOut) {
    if let (Some(d @ (Driver::Browser | Driver::Mobile)), None) = (&c.driver, &c.session) {
        out.emit(
            "driver",
            "session-required",
            format!("driver {d} needs a session (a key of catalog.yaml sessions)"),
        );
    }
}

/// `session-unknown`: the session is not in catalog.yaml sessions.
pub(super) fn session_unknown(cx: &Cx, c: &Case, out: &mut CaseOut) {
    let known = |s: &str| cx.cat.session(s).is_some();
    out.unknown(
        "session",
        "session-unknown",
        c.session.as_deref(),
        known,
        "sessions",
    );
}

/// `session-driver`: a browser case on a mobile session or the reverse.
pub(super) fn session_driver(cx: &Cx, c: &Case, out: &mut CaseOut) {
    let Some((s, sess)) = c
        .session
        .as_ref()
        .and_then(|s| cx.cat.session(s).map(|sess| (s, sess)))
    else {
        return;
    };
    let clash = matches!(
        (c.driver, sess.kind),
        (Some(Driver::Browser), Some(SessionKind::Mobile))
            | (Some(Driver::Mobile), Some(SessionKind::Browser))
    );
    if clash {
        out.emit(
            "session",
            "session-driver",
            format!(
                "driver {} cannot use session {s:?} of kind {}",
                c.driver.map_or("", Driver::as_str),
                sess.kind.map_or("", SessionKind::as_str)
            ),
        );
    }
}

/// `assisted-step`: an assisted case has a step the person does.
pub(super) fn assisted_step(_: &Cx, c: &Case, out: &mut CaseOut) {
    let has_manual = c
        .how
        .steps
        .iter()
        .any(|s| s.trim_start().starts_with(MANUAL_STEP));
    if automation(c) == Automation::Assisted && !has_manual {
        let key = if c.locs.contains_key("how.steps") {
            "how.steps"
        } else {
            "how"
        };
        out.emit(
            key,
            "assisted-step",
            format!("automation assisted needs a how.steps entry starting with {MANUAL_STEP}"),
        );
    }
}

/// The driver that runs the case: its own, or `script` for an automated or assisted one.
fn driver(c: &Case) -> Option<Driver> {
    c.driver
        .or((automation(c) != Automation::Manual).then_some(Driver::Script))
}

/// `script-how`: a script case has one of the forms of `how`.
pub(super) fn script_how(_: &Cx, c: &Case, out: &mut CaseOut) {
    if driver(c) != Some(Driver::Script) || !c.locs.contains_key("how") {
        return;
    }
    let has_api = c.expected.iter().any(|e| {
        matches!(
            e.kind,
            Some(ExpectedKind::ApiStatus | ExpectedKind::ApiField)
        )
    });
    let h = &c.how;
    let ok =
        h.run.is_some() || (h.url.is_some() && has_api) || (h.url.is_none() && !h.steps.is_empty());
    if !ok {
        out.emit(
            "how",
            "script-how",
            "a script case needs how.run, or how.url with api-status/api-field expectations, or only how.steps",
        );
    } else if has_api && h.url.is_none() {
        out.emit(
            "how",
            "script-how",
            "api-status/api-field expectations need how.url",
        );
    }
}

/// `browser-url`: a browser case opens a URL.
pub(super) fn browser_url(_: &Cx, c: &Case, out: &mut CaseOut) {
    if driver(c) == Some(Driver::Browser) && c.how.url.is_none() {
        out.emit("how", "browser-url", "a browser case needs how.url");
    }
}

/// `artifact-identity` (a warning): a required mobile artifact names its app.
pub(super) fn artifact_identity(cx: &Cx, out: &mut Out) {
    let cat = cx.cat;
    let arts = [
        ("android", cat.artifacts.android.as_ref(), "package"),
        ("ios", cat.artifacts.ios.as_ref(), "bundle_id"),
    ];
    for (platform, a, id_key) in arts {
        let Some(a) = a else { continue };
        let id = if platform == "android" {
            &a.package
        } else {
            &a.bundle_id
        };
        if a.required && id.as_deref().is_none_or(str::is_empty) {
            out.emit(
                &cat.file,
                cat.at("artifacts"),
                "artifact-identity",
                format!("artifacts.{platform} is required but names no {id_key}"),
            );
        }
    }
}
