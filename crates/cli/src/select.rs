//! `testdeck select`: the catalog selection — run_together expanded, execution
//! order, effective status_probe per category, excluded cases with reasons.

use super::{EXIT_FOUND, print_json};
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::catalog::{Risk, Tag};
use testdeck_core::workspace::host::{self, HostClass};
use testdeck_core::workspace::select::{Request, select};
use testdeck_core::workspace::vars::{Vars, process_env};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Case ids, category ids or fuzzy queries over id and title (none: every case).
    #[arg(value_name = "ID|QUERY")]
    pub(crate) ids: Vec<String>,
    /// The highest risk to run (default: the catalog's default_max_risk).
    #[arg(long, value_name = "R")]
    pub(crate) max_risk: Option<Risk>,
    /// Only cases with this tag (smoke, full, slow).
    #[arg(long, value_name = "T", value_parser = parse_tag)]
    pub(crate) tag: Option<Tag>,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

fn parse_tag(s: &str) -> Result<Tag, String> {
    Tag::parse(s).ok_or_else(|| format!("not one of {}", Tag::choices()))
}

pub fn run(args: &Args, ws: &testdeck_core::workspace::Workspace) -> ExitCode {
    let Some(cat) = &ws.catalog else {
        return super::usage("no tester catalog here (.pouch/tester/)");
    };
    let vars = Vars::resolve(cat, &process_env);
    let sel = select(
        cat,
        &vars,
        &Request {
            ids: args.ids.clone(),
            max_risk: args.max_risk,
            tag: args.tag,
        },
    );
    // an argument that matched nothing is a problem the caller should see
    let unmatched = sel.excluded.iter().any(|e| cat.case(&e.id).is_none());
    // the one classifier says what launching this selection will need
    let host = vars.host();
    let class = host::classify_host(host);
    if args.json {
        let mut doc = serde_json::to_value(&sel).unwrap_or_default();
        if let Some(m) = doc.as_object_mut() {
            m.insert(
                "host".into(),
                serde_json::json!({
                    "value": host,
                    "loopback": class.is_loopback(),
                    "problem": match &class {
                        HostClass::Invalid(e) => Some(e.as_str()),
                        _ => None,
                    },
                }),
            );
        }
        print_json(&doc);
    } else {
        let note = match &class {
            HostClass::Loopback => String::new(),
            HostClass::Remote => "  (not loopback: nothing runs without --allow-remote)".into(),
            HostClass::Invalid(e) => format!("  ({}; treated as remote)", escape(e)),
        };
        crate::outln!("HOST {}{note}  max-risk {}", escape(host), sel.max_risk);
        crate::outln!("selected ({}):", sel.selected.len());
        for (i, s) in sel.selected.iter().enumerate() {
            let title = cat.case(&s.id).map_or("", |c| c.title.as_str());
            let group = s
                .group
                .map(|g| format!("  [run_together {g}]"))
                .unwrap_or_default();
            crate::outln!(
                "  {:>3}. {:<16} {:<10} {}{}",
                i + 1,
                escape(&s.id),
                escape(&s.category),
                escape(title),
                group
            );
        }
        if !sel.excluded.is_empty() {
            crate::outln!("excluded ({}):", sel.excluded.len());
            for e in &sel.excluded {
                crate::outln!("  {:<16} {}", escape(&e.id), escape(&e.reason));
            }
        }
        crate::outln!("categories:");
        for c in &sel.categories {
            if let Some(p) = &c.status_probe {
                let stop: Vec<String> = p
                    .stop_if
                    .iter()
                    .map(|s| {
                        let vals: Vec<String> = s.values.iter().map(ToString::to_string).collect();
                        format!("{} in [{}]", s.field, vals.join(", "))
                    })
                    .collect();
                crate::outln!(
                    "  {:<10} probe {}{}",
                    escape(&c.id),
                    escape(&p.url),
                    if stop.is_empty() {
                        String::new()
                    } else {
                        format!("  stop if {}", escape(&stop.join("; ")))
                    }
                );
            } else {
                crate::outln!("  {:<10} no probe", escape(&c.id));
            }
        }
    }
    if unmatched {
        ExitCode::from(EXIT_FOUND)
    } else {
        ExitCode::SUCCESS
    }
}
