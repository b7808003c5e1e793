//! Rules on risk and authorization: the risk ladder, `authorize`, gates, and
//! `assume`, which must not decide what risk and gates already decide.

use super::{CaseOut, Cx, Out};
use crate::assume::Assume;
use crate::catalog::{Case, Risk, Tag};

/// `risks-ladder`: risks are a prefix of readonly → mutating → destructive starting at readonly.
pub(super) fn risks_ladder(cx: &Cx, out: &mut Out) {
    let cat = cx.cat;
    if !cat.parsed {
        return;
    }
    let ladder = &Risk::ALL[..cat.risks.len().min(Risk::ALL.len())];
    if cat.risks.is_empty() || cat.risks != ladder {
        let got: Vec<&str> = cat.risks.iter().map(|r| r.as_str()).collect();
        out.emit(
            &cat.file,
            cat.at("risks"),
            "risks-ladder",
            format!(
                "risks [{}] must be a prefix of readonly → mutating → destructive starting at readonly",
                got.join(", ")
            ),
        );
    }
}

/// `default-max-risk`: `default_max_risk` is not one of risks.
pub(super) fn default_max_risk(cx: &Cx, out: &mut Out) {
    if let Some(r) = cx.cat.default_max_risk {
        if !cx.cat.risks.contains(&r) {
            out.emit(
                &cx.cat.file,
                cx.cat.at("default_max_risk"),
                "default-max-risk",
                format!("default_max_risk {r} is not one of risks"),
            );
        }
    }
}

/// `authorize-risk`: an `authorize` key that is not one of risks.
pub(super) fn authorize_risk(cx: &Cx, out: &mut Out) {
    for s in &cx.cat.authorize {
        let ok = Risk::parse(&s.key).is_some_and(|r| cx.cat.risks.contains(&r));
        if !ok {
            out.emit(
                &cx.cat.file,
                s.pos,
                "authorize-risk",
                format!("authorize key {:?} is not one of risks", s.key),
            );
        }
    }
}

/// `authorize-in-catalog`: an authorization switch (a variable of `authorize` or
/// `gates`) set in `catalog.yaml` `vars`: a committed file cannot authorize its own
/// cases, so the value is ignored (switches come from the environment and local.yaml).
pub(super) fn authorize_in_catalog(cx: &Cx, out: &mut Out) {
    let switches: Vec<&str> = cx.cat.switch_vars().collect();
    for v in cx
        .cat
        .vars
        .iter()
        .filter(|v| switches.contains(&v.name.as_str()))
    {
        out.emit(
            &cx.cat.file,
            v.pos,
            "authorize-in-catalog",
            format!(
                "{} is an authorization switch: catalog.yaml vars cannot set it (ignored); set it in the environment or local.yaml",
                v.name
            ),
        );
    }
}

/// `smoke-readonly`: a smoke case is readonly.
pub(super) fn smoke_readonly(_: &Cx, c: &Case, out: &mut CaseOut) {
    if c.tag == Some(Tag::Smoke) && c.risk.is_some_and(|r| r != Risk::Readonly) {
        out.emit(
            "tag",
            "smoke-readonly",
            format!(
                "tag smoke needs risk readonly, not {}",
                c.risk.map_or("", Risk::as_str)
            ),
        );
    }
}

/// `gate-unknown`: the gate is not in catalog.yaml gates.
pub(super) fn gate_unknown(cx: &Cx, c: &Case, out: &mut CaseOut) {
    let known = |g: &str| cx.cat.gate_var(g).is_some();
    out.unknown("gate", "gate-unknown", c.gate.as_deref(), known, "gates");
}

/// `gate-readonly`: a readonly case takes no gate.
pub(super) fn gate_readonly(_: &Cx, c: &Case, out: &mut CaseOut) {
    if c.gate.is_some() && c.risk == Some(Risk::Readonly) {
        out.emit("gate", "gate-readonly", "a readonly case takes no gate");
    }
}

/// `risk-unlisted`: the case's risk is not in catalog.yaml risks.
pub(super) fn risk_unlisted(cx: &Cx, c: &Case, out: &mut CaseOut) {
    if let Some(r) = c.risk {
        if !cx.cat.risks.is_empty() && !cx.cat.risks.contains(&r) {
            out.emit(
                "risk",
                "risk-unlisted",
                format!("risk {r} is not in catalog.yaml risks"),
            );
        }
    }
}

/// `assume-syntax`: `assume` does not parse.
pub(super) fn assume_syntax(_: &Cx, c: &Case, out: &mut CaseOut) {
    if let Some(Err(m)) = c.assume.as_deref().map(Assume::parse) {
        out.emit("assume", "assume-syntax", format!("assume: {m}"));
    }
}

/// `assume-switch`: `assume` names an authorize/gates variable.
pub(super) fn assume_switch(cx: &Cx, c: &Case, out: &mut CaseOut) {
    let Some(Ok(expr)) = c.assume.as_deref().map(Assume::parse) else {
        return;
    };
    let switches: Vec<&str> = cx.cat.switch_vars().collect();
    for n in expr.names().filter(|n| switches.contains(n)) {
        out.emit(
            "assume",
            "assume-switch",
            format!(
                "assume names {n}, an authorize/gates variable: risk and gate already decide it"
            ),
        );
    }
}
