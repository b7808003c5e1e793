//! Rules on HOST: it is `host[:port]`, a remote one is worth a warning, and every
//! URL is built from it (the literal-host rule).

use super::{CaseOut, Cx, Out, Scan, case_sites, catalog_sites};
use crate::catalog::{Case, Pos};
use crate::host::{self, HostClass};
use crate::vars::{self, VarSource};

/// What is wrong with the URLs of a text read as `scan` says, one message each.
fn literal_problems(cx: &Cx, scan: Scan, text: &str) -> Vec<String> {
    let derived = |n: &str| cx.derived(n);
    match scan {
        Scan::Skip => Vec::new(),
        Scan::Url => host::url_field_problem(text, &derived)
            .into_iter()
            .collect(),
        Scan::Text | Scan::Shell => {
            let found = if scan == Scan::Shell {
                host::literal_hosts_in_shell(text, &derived)
            } else {
                host::literal_hosts(text, &derived)
            };
            found.iter().map(host::LiteralHost::message).collect()
        }
    }
}

/// `host-literal` in catalog.yaml and local.yaml: vars, probes, session fields.
pub(super) fn host_literal(cx: &Cx, out: &mut Out) {
    for site in catalog_sites(cx.cat) {
        for m in literal_problems(cx, site.scan, site.text) {
            out.emit(
                site.file,
                site.pos,
                "host-literal",
                format!("{}: {m}", site.what),
            );
        }
    }
}

/// `host-literal` in a case: how.url, how.run, url expectations.
pub(super) fn case_host_literal(cx: &Cx, c: &Case, out: &mut CaseOut) {
    for site in case_sites(c) {
        for m in literal_problems(cx, site.scan, &site.text) {
            out.emit(&site.key, "host-literal", format!("{}: {m}", site.what));
        }
    }
}

/// Where HOST was set: the file and place of its definition.
fn host_place<'a>(cx: &Cx<'a>) -> (&'a str, Pos) {
    let cat = cx.cat;
    let f = cat.file.as_str();
    let local = cat.local.as_ref();
    match cx.vars.host_source() {
        VarSource::Local => (
            local.map_or(f, |l| l.file.as_str()),
            local
                .and_then(|l| l.get(vars::HOST))
                .map_or(Pos::default(), |v| v.pos),
        ),
        VarSource::Catalog => (
            f,
            cat.vars
                .iter()
                .find(|v| v.name == vars::HOST)
                .map_or_else(|| cat.at("vars.HOST"), |v| v.pos),
        ),
        _ => (f, Pos::default()),
    }
}

/// `host-invalid`: HOST is not `host[:port]`.
pub(super) fn host_invalid(cx: &Cx, out: &mut Out) {
    if let HostClass::Invalid(why) = host::classify_host(cx.vars.host()) {
        let (file, pos) = host_place(cx);
        out.emit(
            file,
            pos,
            "host-invalid",
            format!(
                "{why} (from {}); launching treats it as a remote HOST",
                cx.vars.host_source().as_str()
            ),
        );
    }
}

/// `host-remote` (a warning): HOST is allowed to be another machine, and nothing
/// is sent there until the person allows it.
pub(super) fn host_remote(cx: &Cx, out: &mut Out) {
    if host::classify_host(cx.vars.host()) == HostClass::Remote {
        let (file, pos) = host_place(cx);
        out.emit(
            file,
            pos,
            "host-remote",
            format!(
                "HOST is {} (from {}): not this machine; nothing is sent and no case runs until the remote host is allowed (--allow-remote, or the prompt)",
                cx.vars.host(),
                cx.vars.host_source().as_str()
            ),
        );
    }
}
