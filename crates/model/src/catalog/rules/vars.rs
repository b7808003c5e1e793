//! Rules on vars: every `${NAME}` is a var, and expansion stays within its limits
//! and without cycles.

use super::{CaseOut, Cx, Out, case_sites, catalog_sites, var_defs};
use crate::catalog::Case;
use crate::vars::{MAX_EXPANDED, MAX_TOTAL_EXPANDED};

/// `var-unknown` in catalog.yaml and local.yaml: vars, probes, session fields.
pub(super) fn var_unknown(cx: &Cx, out: &mut Out) {
    for site in catalog_sites(cx.cat) {
        for name in cx.vars.expand(site.text).unknown {
            let msg = if site.var {
                format!("{}: ${{{name}}} is not a var", site.what)
            } else {
                format!(
                    "{}: ${{{name}}} is not a var (define it in catalog.yaml vars)",
                    site.what
                )
            };
            out.emit(site.file, site.pos, "var-unknown", msg);
        }
    }
}

/// `var-unknown` in a case: how.run, how.url, how.steps, expected values.
pub(super) fn case_var_unknown(cx: &Cx, c: &Case, out: &mut CaseOut) {
    for site in case_sites(c) {
        for name in cx.vars.expand(&site.text).unknown {
            out.emit(
                &site.key,
                "var-unknown",
                format!("{}: ${{{name}}} is not a var", site.what),
            );
        }
    }
}

/// `var-too-long`: a var whose expanded value would pass [`MAX_EXPANDED`].
pub(super) fn var_too_long(cx: &Cx, out: &mut Out) {
    for (file, v) in var_defs(cx.cat).filter(|(_, v)| cx.vars.too_long.contains(&v.name)) {
        out.emit(
            file,
            v.pos,
            "var-too-long",
            format!(
                "{}: its expanded value would pass {MAX_EXPANDED} bytes; the references that would pass it stay as written",
                v.name
            ),
        );
    }
}

/// `var-budget-exceeded`: the vars together would pass [`MAX_TOTAL_EXPANDED`].
pub(super) fn var_budget_exceeded(cx: &Cx, out: &mut Out) {
    for (file, v) in var_defs(cx.cat).filter(|(_, v)| cx.vars.over_budget.contains(&v.name)) {
        out.emit(
            file,
            v.pos,
            "var-budget-exceeded",
            format!(
                "{}: all vars together would pass {MAX_TOTAL_EXPANDED} bytes when expanded; the references past it stay as written",
                v.name
            ),
        );
    }
}

/// `var-cycle`: a var whose value refers back to itself.
pub(super) fn var_cycle(cx: &Cx, out: &mut Out) {
    for (file, v) in var_defs(cx.cat).filter(|(_, v)| cx.vars.cycles.contains(&v.name)) {
        out.emit(
            file,
            v.pos,
            "var-cycle",
            format!("{}: its value refers back to itself", v.name),
        );
    }
}
