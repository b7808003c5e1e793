//! The catalog selection: which cases run and in what order — lifecycle, max risk,
//! tag, `run_together` expansion, category order — and each category's effective
//! `status_probe`. The launcher runs exactly this selection.

use super::catalog::{Case, Catalog, Lifecycle, Risk, StopIf, Tag};
use super::fuzzy::Query;
use super::vars::Vars;
use serde::Serialize;
use serde_json::{Map, Value};

/// What to select: ids or queries (none = every case), the max risk (default the
/// catalog's `default_max_risk`), an optional tag.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// An exact case id, an exact category id (all its cases), or a fuzzy query
    /// (fzf syntax) over id and title.
    pub ids: Vec<String>,
    /// The highest risk to run; the catalog's `default_max_risk` (else `readonly`) when `None`.
    pub max_risk: Option<Risk>,
    /// Only cases with this tag.
    pub tag: Option<Tag>,
}

/// The selection, in execution order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selection {
    /// The cases to run, in execution order.
    pub selected: Vec<Selected>,
    /// The cases and arguments left out, and why.
    pub excluded: Vec<Excluded>,
    /// Categories with at least one selected case, in catalog order.
    pub categories: Vec<CategoryProbe>,
    /// The max risk applied.
    #[serde(rename = "maxRisk")]
    pub max_risk: Risk,
}

/// A case to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selected {
    /// The case id.
    pub id: String,
    /// Its category.
    pub category: String,
    /// The index of its `run_together` group.
    pub group: Option<usize>,
}

/// A case (or an argument) left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Excluded {
    /// The case id, or the argument that matched nothing.
    pub id: String,
    /// Why it was left out.
    pub reason: String,
}

/// A category's effective probe.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryProbe {
    /// The category id.
    pub id: String,
    #[serde(rename = "statusProbe")]
    /// The probe fetched before it runs, `None` when it has none.
    pub status_probe: Option<ResolvedProbe>,
}

/// A probe with its `url` expanded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedProbe {
    /// The URL, variables expanded.
    pub url: String,
    #[serde(serialize_with = "stop_if_map")]
    /// Fields of the answer whose values stop the category.
    pub stop_if: Vec<StopIf>,
}

fn stop_if_map<S: serde::Serializer>(v: &[StopIf], s: S) -> Result<S::Ok, S::Error> {
    let m: Map<String, Value> = v
        .iter()
        .map(|x| (x.field.clone(), Value::Array(x.values.clone())))
        .collect();
    m.serialize(s)
}

/// Select cases of `cat` for `req`; `vars` expands probe urls.
#[expect(
    clippy::too_many_lines,
    reason = "the selection rules applied in their documented order over one candidate set"
)]
pub fn select(cat: &Catalog, vars: &Vars, req: &Request) -> Selection {
    let max_risk = req.max_risk.unwrap_or_else(|| cat.max_risk());
    let mut excluded = Vec::new();
    // 1. what the person picked, in catalog order
    let mut picked = vec![false; cat.cases.len()];
    if req.ids.is_empty() {
        picked.fill(true);
    } else {
        for arg in &req.ids {
            let hits = resolve_arg(cat, arg);
            if hits.is_empty() {
                excluded.push(Excluded {
                    id: arg.clone(),
                    reason: "unknown id: no case id, category or title matches".to_owned(),
                });
            }
            for i in hits {
                picked[i] = true;
            }
        }
    }
    // 2. the tag narrows what was picked (a group still runs whole, below)
    let mut off_tag = Vec::new();
    if let Some(tag) = req.tag {
        for (i, c) in cat.cases.iter().enumerate() {
            if picked[i] && c.tag != Some(tag) {
                picked[i] = false;
                off_tag.push((i, tag));
            }
        }
    }
    // 3. run_together: one member picks the whole group
    let mut groups_picked = vec![false; cat.run_together.len()];
    for (i, c) in cat.cases.iter().enumerate() {
        if picked[i] {
            if let Some(g) = cat.group_of(&c.id) {
                groups_picked[g] = true;
            }
        }
    }
    for (i, tag) in off_tag {
        let c = &cat.cases[i];
        // a member of a group that runs anyway is not excluded
        if cat.group_of(&c.id).is_none_or(|g| !groups_picked[g]) {
            excluded.push(Excluded {
                id: c.id.clone(),
                reason: format!("tag {} is not {tag}", c.tag.map_or("(none)", Tag::as_str)),
            });
        }
    }
    // 4. order: category order, then case order; a group runs in `ids` order at the
    // place of its first member
    let cat_index = |c: &Case| {
        cat.categories
            .iter()
            .position(|k| k.id == c.category)
            .unwrap_or(usize::MAX)
    };
    let mut order: Vec<usize> = (0..cat.cases.len()).collect();
    order.sort_by_key(|&i| (cat_index(&cat.cases[i]), i));
    let mut units: Vec<Unit> = Vec::new();
    let mut group_done = vec![false; cat.run_together.len()];
    for i in order {
        let c = &cat.cases[i];
        match cat.group_of(&c.id) {
            Some(g) if groups_picked[g] && !group_done[g] => {
                group_done[g] = true;
                let members = cat.run_together[g]
                    .ids
                    .iter()
                    .filter_map(|id| cat.cases.iter().position(|c| &c.id == id))
                    .collect();
                units.push(Unit {
                    group: Some(g),
                    members,
                });
            }
            Some(g) if groups_picked[g] => {}
            _ if picked[i] => units.push(Unit {
                group: None,
                members: vec![i],
            }),
            _ => {}
        }
    }
    // 5. exclusions: lifecycle, invalid fields, risk (a group with a member above
    // the max risk is left out whole: its steps belong together)
    let mut selected = Vec::new();
    for u in units {
        let too_risky: Vec<&Case> = u
            .members
            .iter()
            .map(|&i| &cat.cases[i])
            .filter(|c| {
                c.lifecycle == Some(Lifecycle::Active) && c.risk.is_some_and(|r| r > max_risk)
            })
            .collect();
        for &i in &u.members {
            let c = &cat.cases[i];
            let reason = match (c.lifecycle, c.risk) {
                (None, _) => Some("lifecycle missing or invalid".to_owned()),
                (Some(l @ (Lifecycle::Pending | Lifecycle::Retired)), _) => {
                    Some(format!("lifecycle {l}"))
                }
                (_, None) => Some("risk missing or invalid".to_owned()),
                (_, Some(r)) if r > max_risk => {
                    Some(format!("risk {r} is above max-risk {max_risk}"))
                }
                _ if !too_risky.is_empty() => Some(format!(
                    "run_together group {}: {} is above max-risk {max_risk}",
                    u.group.unwrap_or_default(),
                    too_risky
                        .iter()
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => None,
            };
            match reason {
                Some(reason) => excluded.push(Excluded {
                    id: c.id.clone(),
                    reason,
                }),
                None => selected.push(Selected {
                    id: c.id.clone(),
                    category: c.category.clone(),
                    group: u.group,
                }),
            }
        }
    }
    // 6. the effective probe of each category that has something to run
    let categories = cat
        .categories
        .iter()
        .filter(|k| selected.iter().any(|s| s.category == k.id))
        .map(|k| CategoryProbe {
            id: k.id.clone(),
            status_probe: cat.effective_probe(&k.id).map(|p| ResolvedProbe {
                url: vars.expand(&p.url).text,
                stop_if: p.stop_if.clone(),
            }),
        })
        .collect();
    Selection {
        selected,
        excluded,
        categories,
        max_risk,
    }
}

/// Cases in one unit of execution: a single case or a whole group.
struct Unit {
    group: Option<usize>,
    members: Vec<usize>,
}

/// The cases an argument names: an exact id, else an exact category id, else a
/// fuzzy query over id and title.
fn resolve_arg(cat: &Catalog, arg: &str) -> Vec<usize> {
    if let Some(i) = cat.cases.iter().position(|c| c.id == arg) {
        return vec![i];
    }
    if cat.categories.iter().any(|k| k.id == arg) {
        return (0..cat.cases.len())
            .filter(|&i| cat.cases[i].category == arg)
            .collect();
    }
    let mut q = Query::new(arg);
    (0..cat.cases.len())
        .filter(|&i| {
            let c = &cat.cases[i];
            q.score(&format!("{} {}", c.id, c.title)).is_some()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::from_texts;

    const CAT: &str = r"
categories:
  - {id: WEB, title: Web, status_probe: false}
  - {id: API, title: Api}
  - {id: OPS, title: Ops, status_probe: {url: '${OPS}/ready', stop_if: {state: [down]}}}
risks: [readonly, mutating, destructive]
default_max_risk: mutating
vars: {API: 'http://${HOST}:8095', OPS: 'http://${HOST}:9000'}
status_probe: {url: '${API}/health', stop_if: {status: [maintenance]}}
run_together:
  - ids: [A-3, A-1]
    continue_on_fail: true
";

    fn case(id: &str, risk: &str, tag: &str, lifecycle: &str) -> String {
        format!(
            "  - {{id: {id}, title: title of {id}, risk: {risk}, tag: {tag}, lifecycle: {lifecycle}}}\n"
        )
    }

    fn catalog() -> Catalog {
        let api = [
            case("A-1", "readonly", "smoke", "active"),
            case("A-2", "readonly", "full", "active"),
            case("A-3", "mutating", "full", "active"),
            case("A-4", "readonly", "full", "pending"),
            case("A-5", "destructive", "full", "active"),
        ]
        .concat();
        let web = [
            case("W-1", "readonly", "smoke", "active"),
            case("W-2", "readonly", "full", "retired"),
        ]
        .concat();
        let ops = case("O-1", "readonly", "slow", "active");
        let files = [
            ("cases/api.yaml", format!("cases:\n{api}")),
            ("cases/ops.yaml", format!("cases:\n{ops}")),
            ("cases/web.yaml", format!("cases:\n{web}")),
        ];
        let files: Vec<(&str, Option<&str>)> =
            files.iter().map(|(p, t)| (*p, Some(t.as_str()))).collect();
        let mut p = Vec::new();
        from_texts(CAT, None, &files, &mut p)
    }

    fn run(ids: &[&str], max: Option<Risk>, tag: Option<Tag>) -> Selection {
        let cat = catalog();
        let vars = Vars::resolve(&cat, &|n| (n == "HOST").then(|| "127.0.0.9".to_owned()));
        select(
            &cat,
            &vars,
            &Request {
                ids: ids.iter().map(|s| (*s).to_owned()).collect(),
                max_risk: max,
                tag,
            },
        )
    }

    fn ids(s: &Selection) -> Vec<(&str, Option<usize>)> {
        s.selected
            .iter()
            .map(|x| (x.id.as_str(), x.group))
            .collect()
    }

    fn excluded(s: &Selection) -> Vec<(&str, &str)> {
        s.excluded
            .iter()
            .map(|x| (x.id.as_str(), x.reason.as_str()))
            .collect()
    }

    #[test]
    fn everything_in_category_order_with_groups_together() {
        let s = run(&[], None, None);
        assert_eq!(
            ids(&s),
            [
                ("W-1", None),
                ("A-3", Some(0)),
                ("A-1", Some(0)),
                ("A-2", None),
                ("O-1", None)
            ]
        );
        assert_eq!(
            excluded(&s),
            [
                ("W-2", "lifecycle retired"),
                ("A-4", "lifecycle pending"),
                ("A-5", "risk destructive is above max-risk mutating"),
            ]
        );
        assert_eq!(s.max_risk, Risk::Mutating);
    }

    #[test]
    fn one_member_selects_the_group_in_ids_order() {
        let s = run(&["A-1"], None, None);
        assert_eq!(ids(&s), [("A-3", Some(0)), ("A-1", Some(0))]);
        assert!(s.excluded.is_empty());
    }

    #[test]
    fn a_group_with_a_member_above_max_risk_is_left_out_whole() {
        let s = run(&["A-1"], Some(Risk::Readonly), None);
        assert!(s.selected.is_empty());
        assert_eq!(
            excluded(&s),
            [
                ("A-3", "risk mutating is above max-risk readonly"),
                (
                    "A-1",
                    "run_together group 0: A-3 is above max-risk readonly"
                ),
            ]
        );
    }

    #[test]
    fn tag_filters_what_was_picked_but_not_group_members() {
        let s = run(&[], Some(Risk::Destructive), Some(Tag::Smoke));
        assert_eq!(ids(&s), [("W-1", None), ("A-3", Some(0)), ("A-1", Some(0))]);
        let ex = excluded(&s);
        assert!(ex.contains(&("A-2", "tag full is not smoke")));
        assert!(ex.contains(&("O-1", "tag slow is not smoke")));
        assert!(!ex.iter().any(|(id, _)| *id == "A-3"));
    }

    #[test]
    fn ids_categories_queries_and_unknown() {
        let s = run(&["OPS", "nothing-matches-this", "W-1"], None, None);
        assert_eq!(ids(&s), [("W-1", None), ("O-1", None)]);
        assert_eq!(
            excluded(&s),
            [(
                "nothing-matches-this",
                "unknown id: no case id, category or title matches"
            )]
        );
        let s = run(&["title of A-2"], None, None);
        assert_eq!(ids(&s), [("A-2", None)]);
    }

    #[test]
    fn probes_per_selected_category_expanded() {
        let s = run(&[], None, None);
        let probes: Vec<(&str, Option<&str>)> = s
            .categories
            .iter()
            .map(|c| {
                (
                    c.id.as_str(),
                    c.status_probe.as_ref().map(|p| p.url.as_str()),
                )
            })
            .collect();
        assert_eq!(
            probes,
            [
                ("WEB", None),
                ("API", Some("http://127.0.0.9:8095/health")),
                ("OPS", Some("http://127.0.0.9:9000/ready")),
            ]
        );
        let json = serde_json::to_value(&s).expect("json");
        assert_eq!(
            json["categories"][2]["statusProbe"],
            serde_json::json!({"url": "http://127.0.0.9:9000/ready", "stop_if": {"state": ["down"]}})
        );
        assert_eq!(
            json["categories"][0]["statusProbe"],
            serde_json::Value::Null
        );
        let only_web = run(&["W-1"], None, None);
        assert_eq!(only_web.categories.len(), 1);
    }
}
