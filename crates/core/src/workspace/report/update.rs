//! `report --update`: an existing report brought back to the logs — the numbers
//! of 总体结论 and of every 通过率 block, every evidence list, 分析范围's run
//! lines, a node the logs gained added with placeholders, a node whose cases are
//! gone marked — and every other byte as the person wrote it.

use super::super::Workspace;
use super::super::stats;
use super::draft::Facts;
use super::{Outline, block_field, block_values, conclusion_fields, conclusion_value, same_number};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The line a node whose cases are gone gets under its heading.
pub const GONE: &str = "> testdeck: 这个节点的 case 已不在 tests/ 与 tests/logs/ 中。";
/// The evidence of a node without a finished run.
pub(crate) const NO_RUNS: &str = "- 当前没有已结束的 run。";

/// One change an update makes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// `number` (a number of 总体结论 or of a 通过率 block), `block` (a 通过率
    /// block written where none was), `evidence` (an evidence list), `scope`
    /// (分析范围's run lines), `node-added`, `node-gone`.
    pub kind: &'static str,
    /// The node (`domain/layer/…`; the domain for 总览).
    pub node: String,
    /// Its line in the report as it is (from 1).
    pub line: u32,
    /// A number's field (`totalRuns`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What the report says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// What the logs say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logs: Option<String>,
}

/// A report and the same report brought back to the logs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Update {
    /// The domain.
    pub domain: String,
    /// `tests/report/<domain>/report.md`.
    pub file: String,
    /// Anything differs.
    pub changed: bool,
    /// What differs, in the report's order.
    pub changes: Vec<Change>,
    /// The unified diff from the report to the update.
    pub diff: String,
    /// The report as read.
    #[serde(skip)]
    pub before: String,
    /// The report brought back to the logs.
    #[serde(skip)]
    pub after: String,
}

/// The lines of `text` with their endings (`\n`, `\r\n`, none for the last).
fn split(text: &str) -> Vec<(&str, &str)> {
    text.split_inclusive('\n')
        .map(|l| {
            let body = l.strip_suffix('\n').unwrap_or(l);
            let body = body.strip_suffix('\r').unwrap_or(body);
            (body, &l[body.len()..])
        })
        .collect()
}

/// An evidence line (`- `caseId` | run=`…` | status=`…``) or the draft's line
/// for no run: what an update replaces in 证据.
fn is_evidence(l: &str) -> bool {
    let t = l.trim();
    t == NO_RUNS || (t.starts_with("- `") && t.contains("| run=`") && t.contains("| status=`"))
}

/// The edits to a report's lines.
#[derive(Default)]
struct Edits {
    /// Line → its new text (`None`: removed).
    replace: BTreeMap<usize, Option<String>>,
    /// Line → lines put before it (the line count: at the end).
    insert: BTreeMap<usize, Vec<String>>,
    changes: Vec<Change>,
}

impl Edits {
    fn change(&mut self, kind: &'static str, node: &str, line: usize) -> &mut Change {
        self.changes.push(Change {
            kind,
            node: node.to_owned(),
            line: line as u32 + 1,
            field: None,
            report: None,
            logs: None,
        });
        let last = self.changes.len() - 1;
        &mut self.changes[last]
    }

    /// Put `new` in place of the places `spans` of line `i` (each with its field,
    /// the report's value and the logs').
    fn numbers(&mut self, i: usize, line: &str, node: &str, mut spans: Vec<NumberFix>) {
        if spans.is_empty() {
            return;
        }
        // two places of one line never overlap (the first of them is kept)
        spans.sort_by_key(|s| s.span.start);
        let mut end = 0;
        spans.retain(|s| {
            let keep = s.span.start >= end;
            if keep {
                end = s.span.end;
            }
            keep
        });
        spans.reverse();
        let mut l = line.to_owned();
        for s in &spans {
            l.replace_range(s.span.clone(), &s.logs);
        }
        self.replace.insert(i, Some(l));
        for s in spans.into_iter().rev() {
            let c = self.change("number", node, i);
            c.field = Some(s.field.to_owned());
            c.report = Some(line[s.span].to_owned());
            c.logs = Some(s.logs);
        }
    }
}

struct NumberFix {
    field: &'static str,
    span: std::ops::Range<usize>,
    logs: String,
}

/// `report --update` of `domain` in `ws`: its report read through the bounded
/// reader, brought back to the logs (nothing written).
pub fn update(ws: &Workspace, domain: &str) -> Result<Update, String> {
    let facts = Facts::read(ws, domain)?;
    let file = format!("tests/report/{domain}/report.md");
    let before = read_report(&ws.root, &file)?;
    Ok(update_text(&facts, &file, &before))
}

/// Read a report the way `validate` does: never through a symbolic link, a
/// regular file within the size cap.
fn read_report(root: &Path, file: &str) -> Result<String, String> {
    if let Some(link) = super::super::read::link_on_the_way(root, Path::new(file)) {
        return Err(format!(
            "{link}: a symbolic link under tests/report is not followed"
        ));
    }
    let path = root.join(file);
    let bytes = super::super::read::read(
        &path,
        Some(&root.join("tests/report")),
        super::super::read::Kind::Markdown,
    )
    .map_err(|e| {
        if e.is_missing() {
            format!("{file}: no report yet; `testdeck report --draft` writes one")
        } else {
            e.problem(file, "").to_string()
        }
    })?;
    // every byte the person wrote is kept: text that is not UTF-8 is not rewritten
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{file}: not UTF-8 at byte {}; nothing updated",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The report `text` (of `file`) brought back to `facts`.
#[expect(
    clippy::too_many_lines,
    reason = "one pass over the report's lines, a state machine whose states share the cursor"
)]
pub fn update_text(facts: &Facts, file: &str, text: &str) -> Update {
    let domain = facts.domain.as_str();
    let outline = Outline::read(text, domain);
    let hs = &outline.hs;
    let lines = split(text);
    let mut ed = Edits::default();

    // 分析范围: the run lines a draft writes
    if let Some(k) = outline.sub(&outline.overview_subs, "分析范围") {
        for i in outline.body(k, lines.len()) {
            let l = lines[i].0;
            let t = l.trim_start();
            for (prefix, new) in ["- 计入 run:", "- 未计入 run:"]
                .iter()
                .zip(facts.scope_lines())
            {
                if t.starts_with(prefix) && l != new {
                    ed.replace.insert(i, Some(new.clone()));
                    let c = ed.change("scope", domain, i);
                    c.report = Some(l.to_owned());
                    c.logs = Some(new.clone());
                }
            }
        }
    }
    // 总体结论: the domain's numbers
    if let (Some(k), Some(n)) = (
        outline.sub(&outline.overview_subs, "总体结论"),
        facts.node(domain),
    ) {
        for i in outline.body(k, lines.len()) {
            let l = lines[i].0;
            let fixes = conclusion_fields(l)
                .into_iter()
                .filter_map(|(field, span)| {
                    let logs = conclusion_value(field, n)?;
                    let has_pct = l[span.clone()].ends_with('%');
                    let v = l[span.clone()].trim_end_matches('%');
                    if same_number(v, &logs) {
                        return None;
                    }
                    // a rate keeps the report's own way of writing its `%`
                    let logs = if has_pct || !logs.ends_with('%') {
                        logs
                    } else {
                        logs.trim_end_matches('%').to_owned()
                    };
                    Some(NumberFix { field, span, logs })
                })
                .collect();
            ed.numbers(i, l, domain, fixes);
        }
    }
    // the nodes
    let analysed: Vec<&super::NodeHeading> =
        outline.nodes.iter().filter(|n| n.analysed(hs)).collect();
    let deeper: Vec<&str> = analysed.iter().map(|n| n.path.as_str()).collect();
    for node in &analysed {
        let head = hs[node.at].line as usize - 1;
        let Some(stats) = facts.node(&node.path) else {
            // its cases are gone: marked once, under its heading
            let own_end = node.subs.first().map_or_else(
                || outline.body(node.at, lines.len()).end,
                |&s| hs[s].line as usize - 1,
            );
            if !(head + 1..own_end).any(|i| lines[i].0.trim() == GONE) {
                ed.insert
                    .entry(head + 1)
                    .or_default()
                    .extend([String::new(), GONE.to_owned()]);
                ed.change("node-gone", &node.path, head);
            }
            continue;
        };
        if let Some(k) = outline.sub(&node.subs, "通过率") {
            let want = block_values(stats);
            let body = outline.body(k, lines.len());
            let mut any = false;
            for i in body.clone() {
                let l = lines[i].0;
                let Some((key, span)) = block_field(l) else {
                    continue;
                };
                let Some((field, logs)) = want.iter().find(|(f, _)| *f == key) else {
                    continue;
                };
                any = true;
                if !same_number(&l[span.clone()], logs) {
                    let fix = NumberFix {
                        field,
                        span,
                        logs: logs.clone(),
                    };
                    ed.numbers(i, l, &node.path, vec![fix]);
                }
            }
            if !any {
                let at = hs[k].line as usize;
                let mut block = vec![String::new()];
                block.extend(stats::markdown_block(stats).lines().map(str::to_owned));
                ed.insert.entry(at).or_default().extend(block);
                ed.change("block", &node.path, at - 1);
            }
        }
        if let Some(k) = outline.sub(&node.subs, "证据") {
            let body = outline.body(k, lines.len());
            let old: Vec<usize> = body.clone().filter(|&i| is_evidence(lines[i].0)).collect();
            let mut new = facts.evidence(&node.path, &deeper);
            if new.is_empty() {
                new.push(NO_RUNS.to_owned());
            }
            let same = old.len() == new.len()
                && old
                    .iter()
                    .zip(&new)
                    .all(|(&i, n)| lines[i].0.trim_end() == n);
            if !same {
                for &i in &old {
                    ed.replace.insert(i, None);
                }
                let (at, lead) = match old.first() {
                    Some(&i) => (i, None),
                    None => (hs[k].line as usize, Some(String::new())),
                };
                ed.insert
                    .entry(at)
                    .or_default()
                    .extend(lead.into_iter().chain(new));
                ed.change(
                    "evidence",
                    &node.path,
                    at.min(lines.len().saturating_sub(1)),
                );
            }
        }
    }
    // nodes the logs gained: under the deepest heading of an ancestor, at its end
    let mut known: Vec<(String, usize, usize)> = outline
        .nodes
        .iter()
        .map(|n| {
            let h = &hs[n.at];
            (n.path.clone(), h.level, outline.body(n.at, lines.len()).end)
        })
        .collect();
    for a in facts.analysed() {
        let covered = analysed
            .iter()
            .any(|r| stats::under(a, &r.path) || stats::under(&r.path, a));
        if covered {
            continue;
        }
        let above = known
            .iter()
            .filter(|(p, _, _)| stats::under(a, p) && p != a)
            .max_by_key(|(p, _, _)| p.split('/').count())
            .cloned();
        let (at, text) = match &above {
            Some((p, level, end)) => (*end, facts.node_text(a, Some((p, *level)))),
            None => (lines.len(), facts.node_text(a, None)),
        };
        let mut add: Vec<String> = Vec::new();
        let prev_blank = at == 0 || lines[at - 1].0.trim().is_empty();
        let prev_added_blank = ed
            .insert
            .get(&at)
            .and_then(|v| v.last())
            .map(|l| l.trim().is_empty());
        if !prev_added_blank.unwrap_or(prev_blank) {
            add.push(String::new());
        }
        add.extend(text.lines().map(str::to_owned));
        if at == lines.len() {
            // the end of the file: no blank line after it
            while add.last().is_some_and(String::is_empty) {
                add.pop();
            }
        }
        ed.change("node-added", a, at.min(lines.len().saturating_sub(1)));
        // its headings are known now, for the nodes added after it
        let base = above
            .as_ref()
            .map_or((domain.to_owned(), 1), |(p, l, _)| (p.clone(), *l));
        let from = base.0.split('/').count();
        let segs: Vec<&str> = a.split('/').collect();
        for d in from + 1..=segs.len() {
            known.push((segs[..d].join("/"), (base.1 + d - from).min(6), at));
        }
        ed.insert.entry(at).or_default().extend(add);
    }
    let after = apply(&lines, &ed);
    let mut changes = ed.changes;
    changes.sort_by_key(|c| c.line);
    let changed = after != text;
    Update {
        domain: domain.to_owned(),
        file: file.to_owned(),
        changed,
        diff: if changed {
            unified_diff(file, text, &after)
        } else {
            String::new()
        },
        changes,
        before: text.to_owned(),
        after,
    }
}

/// The lines with their edits, each kept line with its own ending, the new ones
/// with the report's (`\r\n` when its first line has it).
fn apply(lines: &[(&str, &str)], ed: &Edits) -> String {
    let nl = if lines.first().is_some_and(|(_, e)| *e == "\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut out = String::new();
    let put_new = |out: &mut String, at: usize| {
        for l in ed.insert.get(&at).into_iter().flatten() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(nl);
            }
            out.push_str(l);
            out.push_str(nl);
        }
    };
    for (i, (body, end)) in lines.iter().enumerate() {
        put_new(&mut out, i);
        match ed.replace.get(&i) {
            Some(None) => {}
            Some(Some(new)) => {
                out.push_str(new);
                out.push_str(end);
            }
            None => {
                out.push_str(body);
                out.push_str(end);
            }
        }
    }
    put_new(&mut out, lines.len());
    out
}

/// The unified diff from `before` to `after` of `file` (`a/` and `b/` headers,
/// three lines of context).
pub fn unified_diff(file: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{file}"), &format!("b/{file}"))
        .to_string()
}

impl Update {
    /// Write the update through the atomic writer, when the report on disk is
    /// still the one read (never through a symbolic link).
    pub fn write(&self, root: &Path) -> Result<(), String> {
        if !self.changed {
            return Ok(());
        }
        let now = read_report(root, &self.file)?;
        if now != self.before {
            return Err(format!(
                "{}: changed since it was read; nothing written",
                self.file
            ));
        }
        super::super::read::write_beneath(root, Path::new(&self.file), self.after.as_bytes())
            .map_err(|e| format!("{}: {e}", self.file))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::stats::{NodeStats, Window, compute};
    use super::super::{NODE_SECTIONS, OVERVIEW_SECTIONS, PLACEHOLDER, check_report};
    use super::*;
    use crate::workspace::Workspace;
    use std::collections::HashMap;

    fn demo() -> tempfile::TempDir {
        let d = tempfile::tempdir().expect("tempdir");
        crate::workspace::demo::write_demo(d.path()).expect("demo");
        d
    }

    fn load(root: &Path) -> Workspace {
        Workspace::load(root).expect("load")
    }

    /// The report problems of `text` as the domain's report of `ws`.
    fn check(ws: &Workspace, domain: &str, text: &str) -> Vec<(String, u32)> {
        let nodes = compute(&ws.tests, &ws.logs, &Window::default());
        let by: HashMap<&str, &NodeStats> = nodes.iter().map(|n| (n.path.as_str(), n)).collect();
        check_report("r.md", domain, text, &by)
            .into_iter()
            .map(|p| (p.rule, p.line.unwrap_or(0)))
            .collect()
    }

    /// A copy of a run folder of the demo as a new run `run_id` with `status`.
    fn new_run(root: &Path, from: &str, run_id: &str, status: &str) {
        let src = root.join(from);
        let dst = src.parent().expect("case").join(run_id);
        std::fs::create_dir_all(&dst).expect("mkdir");
        for e in std::fs::read_dir(&src).expect("run") {
            let e = e.expect("entry");
            if e.file_type().expect("type").is_file() {
                std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy");
            }
        }
        let meta = dst.join("meta.json");
        let mut m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&meta).expect("meta")).expect("json");
        m["runId"] = run_id.into();
        m["status"] = status.into();
        std::fs::write(&meta, m.to_string()).expect("write meta");
    }

    /// The lines a person wrote: every line but the log-backed ones (numbers of
    /// 总体结论 and 通过率, evidence, 分析范围's run lines).
    fn human(text: &str) -> Vec<&str> {
        let mut section = "";
        text.lines()
            .filter(|l| {
                if l.starts_with('#') {
                    section = l.trim_start_matches('#').trim();
                    return true;
                }
                let backed = match section {
                    "总体结论" => !conclusion_fields(l).is_empty(),
                    "通过率" => {
                        block_field(l).is_some_and(|(k, _)| block_values_keys().contains(&k))
                    }
                    "证据" => is_evidence(l),
                    "分析范围" => {
                        l.starts_with("- 计入 run:") || l.starts_with("- 未计入 run:")
                    }
                    _ => false,
                };
                !backed
            })
            .collect()
    }

    fn block_values_keys() -> [&'static str; 8] {
        [
            "totalRuns",
            "passedRuns",
            "failedRuns",
            "historicalSuccessRate",
            "latestCaseCount",
            "latestPassedCases",
            "latestFailedCases",
            "latestSuccessRate",
        ]
    }

    #[test]
    fn the_draft_of_each_demo_domain_passes_the_checks_in_the_seed_order() {
        let d = demo();
        let ws = load(d.path());
        let nodes = compute(&ws.tests, &ws.logs, &Window::default());
        for domain in ["ai", "docx", "kb-search"] {
            let text = Facts::read(&ws, domain).expect("facts").draft_text();
            // only a person's parts are left: no stale number, no structure problem
            let problems = check(&ws, domain, &text);
            assert!(!problems.is_empty(), "{domain}: no placeholder");
            assert!(
                problems.iter().all(|(r, _)| r == "report-unwritten"),
                "{domain}: {problems:?}\n{text}"
            );
            for (_, line) in &problems {
                let l = text.lines().nth(*line as usize - 1).expect("line");
                assert!(l.contains(PLACEHOLDER), "{l}");
            }
            // the headings read back in §7's order and levels
            let o = Outline::read(&text, domain);
            assert_eq!(o.hs[0].level, 1);
            assert_eq!(o.hs[0].text, format!("{domain} 域测试报告"));
            assert_eq!(o.overview, Some(1));
            let subs: Vec<(&str, usize)> = o
                .overview_subs
                .iter()
                .map(|&k| (o.hs[k].text.as_str(), o.hs[k].level))
                .collect();
            assert_eq!(subs, OVERVIEW_SECTIONS.map(|s| (s, 3)));
            let analysed: Vec<_> = o.nodes.iter().filter(|n| n.analysed(&o.hs)).collect();
            assert!(!analysed.is_empty());
            for n in &o.nodes {
                let level = o.hs[n.at].level;
                assert_eq!(level, n.path.split('/').count(), "{}", n.path);
                let layer = n.path.split('/').nth(1).expect("layer");
                assert!(["backend", "e2e"].contains(&layer), "{}", n.path);
            }
            for n in analysed {
                let subs: Vec<(&str, usize)> = n
                    .subs
                    .iter()
                    .map(|&k| (o.hs[k].text.as_str(), o.hs[k].level))
                    .collect();
                let want = (o.hs[n.at].level + 1).clamp(5, 6);
                assert_eq!(subs, NODE_SECTIONS.map(|s| (s, want)), "{}", n.path);
                // its numbers are stats' numbers
                let s = nodes.iter().find(|s| s.path == n.path).expect("node");
                let block = format!(
                    "{} 通过率\n\n{}",
                    "#".repeat(want),
                    stats::markdown_block(s)
                );
                assert!(text.contains(&block), "{}", n.path);
            }
            // the domain's numbers in 总体结论
            let s = nodes.iter().find(|s| s.path == domain).expect("domain");
            assert!(text.contains(&format!(
                "`{}` 次 raw runs，其中 `{}` 次 passed、`{}` 次 failed",
                s.historical.total_runs, s.historical.passed_runs, s.historical.failed_runs
            )));
        }
        // the demo's own analysed nodes are the draft's
        let text = Facts::read(&ws, "ai").expect("facts").draft_text();
        let paths: Vec<String> = Outline::read(&text, "ai")
            .nodes
            .into_iter()
            .filter(|n| !n.subs.is_empty())
            .map(|n| n.path)
            .collect();
        assert_eq!(
            paths,
            [
                "ai/backend/director-plan",
                "ai/backend/tools/terminal",
                "ai/e2e/workbench"
            ]
        );
        assert!(text.contains(
            "- `workbench-approval-flow` | run=`20261126-104125-203` | status=`failed` | event=`a2` | name=`oracle/session-completed`"
        ));
        assert!(
            text.contains("未写完 meta.json（`workbench-approval-flow` 的 `20261128-101500-250`）")
        );
        assert!(Facts::read(&ws, "nope").is_err());
        assert!(Facts::read(&ws, "temp").is_err());
        assert!(Facts::read(&ws, "../ai").is_err());
    }

    #[test]
    fn an_update_after_new_runs_fixes_every_number_and_keeps_every_human_line() {
        let d = demo();
        let root = d.path();
        let before = std::fs::read_to_string(root.join("tests/report/ai/report.md")).expect("r");
        new_run(
            root,
            "tests/logs/ai/backend/tools/terminal/live/terminal-live-plan-execute/20261122-123450-422",
            "20261129-090000-000",
            "failed",
        );
        new_run(
            root,
            "tests/logs/ai/e2e/workbench/scenario/workbench-approval-flow/20261126-104125-203",
            "20261129-100000-000",
            "passed",
        );
        let ws = load(root);
        let stale = check(&ws, "ai", &before);
        assert!(
            stale.iter().filter(|(r, _)| r == "report-stale").count() >= 10,
            "{stale:?}"
        );
        let u = update(&ws, "ai").expect("update");
        assert!(u.changed);
        let after = check(&ws, "ai", &u.after);
        assert!(after.is_empty(), "{after:?}\n{}", u.after);
        // every line a person wrote, byte for byte and in its order
        assert_eq!(human(&before), human(&u.after));
        assert!(u.after.contains(
            "- `terminal-live-plan-execute` | run=`20261129-090000-000` | status=`failed` | event=`a2` | name=`oracle/answer-count`"
        ));
        assert!(u.changes.iter().any(|c| c.kind == "number"
            && c.field.as_deref() == Some("totalRuns")
            && c.report.as_deref() == Some("33")
            && c.logs.as_deref() == Some("35")));
        assert!(
            u.diff
                .starts_with("--- a/tests/report/ai/report.md\n+++ b/tests/report/ai/report.md\n")
        );
        // written, then a second update changes nothing
        u.write(root).expect("write");
        let again = update(&ws, "ai").expect("again");
        assert!(!again.changed, "{}", again.diff);
        assert!(again.changes.is_empty());
    }

    #[test]
    fn an_update_adds_a_node_the_logs_gained_and_marks_one_whose_cases_are_gone() {
        let d = demo();
        let ws = load(d.path());
        let facts = Facts::read(&ws, "ai").expect("facts");
        let mine = "# AI 域测试报告\n\n## 总览\n\n### 分析范围\n\n我的范围说明。\n\n### 总体结论\n\n- 历史总数据: `1` 次 raw runs\n- 当前结论: 很好。\n\n### 下一阶段建议\n\n- 多跑。\n\n## backend\n\n### tools\n\n#### terminal\n\n##### 证据\n\n##### 通过率\n\n##### 失败分析\n\n- 我的分析。\n\n##### 当前评估\n\n- 稳定。\n\n##### 下一步建议\n\n- 无。\n\n### old-suite\n\n##### 证据\n\n- `gone-case` | run=`20250101-000000-000` | status=`passed`\n\n##### 通过率\n\n- totalRuns: 3\n\n##### 失败分析\n\n- 旧的。\n\n##### 当前评估\n\n- 旧的。\n\n##### 下一步建议\n\n- 旧的。\n";
        let u = update_text(&facts, "r.md", mine);
        let nodes: Vec<(&str, &str)> = u
            .changes
            .iter()
            .filter(|c| c.kind.starts_with("node"))
            .map(|c| (c.kind, c.node.as_str()))
            .collect();
        assert!(
            nodes.contains(&("node-added", "ai/backend/director-plan")),
            "{nodes:?}"
        );
        assert!(
            nodes.contains(&("node-added", "ai/e2e/workbench")),
            "{nodes:?}"
        );
        assert!(
            nodes.contains(&("node-gone", "ai/backend/old-suite")),
            "{nodes:?}"
        );
        assert_eq!(nodes.len(), 3, "{nodes:?}");
        let problems = check(&ws, "ai", &u.after);
        let rules: std::collections::BTreeSet<&str> =
            problems.iter().map(|(r, _)| r.as_str()).collect();
        // the gone node stays (its words are the person's), named; the rest is filled
        let want: std::collections::BTreeSet<&str> = ["report-unknown-node", "report-unwritten"]
            .into_iter()
            .collect();
        assert_eq!(rules, want, "{problems:?}\n{}", u.after);
        assert!(u.after.contains(&format!("### old-suite\n\n{GONE}\n")));
        assert!(
            u.after
                .contains("##### 通过率\n\n- 历史总数据:\n  - totalRuns: 15\n")
        );
        assert!(
            u.after
                .contains("\n## e2e\n\n### workbench\n\n##### 证据\n")
        );
        // every line of the person's is there, in its order, the added ones between
        let after = human(&u.after);
        let mut at = 0;
        for l in human(mine) {
            let found = after[at..].iter().position(|a| *a == l);
            assert!(found.is_some(), "{l:?} lost or moved\n{}", u.after);
            at += found.unwrap_or(0) + 1;
        }
        let again = update_text(&facts, "r.md", &u.after);
        assert!(!again.changed, "{}", again.diff);
    }

    #[test]
    fn an_update_keeps_crlf_line_ends_and_a_missing_last_newline() {
        let d = demo();
        let ws = load(d.path());
        let facts = Facts::read(&ws, "ai").expect("facts");
        let lf = std::fs::read_to_string(d.path().join("tests/report/ai/report.md")).expect("r");
        let stale = lf.replace("totalRuns: 15", "totalRuns: 99");
        let crlf = stale.replace('\n', "\r\n");
        let crlf = crlf.strip_suffix("\r\n").unwrap_or(&crlf);
        let u = update_text(&facts, "r.md", crlf);
        assert!(u.after.contains("totalRuns: 15\r\n"));
        assert!(!u.after.replace("\r\n", "").contains('\n'), "a bare LF");
        assert!(!u.after.ends_with('\n'));
        assert_eq!(
            update_text(&facts, "r.md", &u.after).after,
            u.after,
            "idempotent"
        );
    }

    #[test]
    fn hostile_report_text_is_kept_and_hostile_names_stay_on_their_line() {
        let d = demo();
        let ws = load(d.path());
        let facts = Facts::read(&ws, "ai").expect("facts");
        let lf = std::fs::read_to_string(d.path().join("tests/report/ai/report.md")).expect("r");
        let huge = "x".repeat(1 << 20);
        let hostile = lf.replace(
            "### 下一阶段建议\n",
            &format!("### 下一阶段建议\n\n- \u{1b}]52;c;ZXZpbA==\u{7} \u{202e}rtl {huge}\n"),
        );
        let u = update_text(&facts, "r.md", &hostile);
        assert!(
            u.after
                .contains(&format!("\u{1b}]52;c;ZXZpbA==\u{7} \u{202e}rtl {huge}\n"))
        );
        assert_eq!(human(&hostile), human(&u.after));
        assert_eq!(
            super::super::draft::quoted("a`b\nc\u{1b}[2J"),
            "ab\\nc\\e[2J"
        );
        assert_eq!(
            super::super::draft::quoted(&"y".repeat(300))
                .chars()
                .count(),
            201
        );
    }
}
