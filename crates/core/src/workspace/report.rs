//! `tests/report/<domain>/report.md` (seed 000 §7): testdeck never writes it; it
//! checks the fixed headings and every 通过率 number against the logs (`report-stale`),
//! and prints the skeleton with computed blocks (`stats --markdown`).

use super::Workspace;
use super::stats::{self, NodeKind, NodeStats, Window, fmt_rate, markdown_block};
use crate::problem::Problem;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The fixed subsections of every analysed node, in order.
pub(crate) const NODE_SECTIONS: [&str; 5] =
    ["证据", "通过率", "失败分析", "当前评估", "下一步建议"];
/// The fixed subsections of 总览, in order.
pub(crate) const OVERVIEW_SECTIONS: [&str; 3] = ["分析范围", "总体结论", "下一阶段建议"];
/// What 失败分析 says when there is no failed run (seed 000 §7).
pub(crate) const NO_FAILURES: &str = "当前没有 failed run，因此无法给出失败模式结论。";

#[derive(Debug, Clone)]
struct Heading {
    level: usize,
    text: String,
    line: u32,
}

fn headings(text: &str) -> Vec<Heading> {
    let mut out = Vec::new();
    let mut fence = false;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_end();
        if t.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let n = t.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&n) && t[n..].starts_with(' ') {
            out.push(Heading {
                level: n,
                text: t[n..].trim().trim_matches('`').trim().to_owned(),
                line: i as u32 + 1,
            });
        }
    }
    out
}

/// Check every domain's report.
pub(crate) fn check(ws: &Workspace) -> Vec<Problem> {
    let dir = ws.root.join("tests/report");
    let mut out = Vec::new();
    if super::walk::is_link_reported(&ws.root, &dir, &mut out) {
        return out;
    }
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return out;
    };
    let nodes = stats::compute(&ws.tests, &ws.logs, &Window::default());
    let by_path: HashMap<&str, &NodeStats> = nodes.iter().map(|n| (n.path.as_str(), n)).collect();

    // symlinks are never followed (file_type does not follow them): a link out of
    // the workspace is reported, never read
    let mut domains: Vec<_> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink()))
        .collect();
    domains.sort_by_key(std::fs::DirEntry::file_name);
    for d in domains {
        let domain = d.file_name().to_string_lossy().into_owned();
        let file = d.path().join("report.md");
        let rel = super::rel(&ws.root, &file);
        let link = d.file_type().is_ok_and(|t| t.is_symlink())
            || std::fs::symlink_metadata(&file).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            out.push(Problem::warning(
                rel,
                "symlink-not-followed",
                "symbolic link under tests/report is not followed",
            ));
            continue;
        }
        match super::read::read_lossy(&file, Some(&dir), super::read::Kind::Markdown) {
            Ok(text) => out.extend(check_report(&rel, &domain, &text, &by_path)),
            Err(e) if e.is_missing() => out.push(Problem::warning(
                rel,
                "report-missing",
                format!("domain {domain:?} has no report.md"),
            )),
            Err(e) => {
                let mut p = e.problem(&rel, "");
                p.severity = crate::Severity::Warning;
                out.push(p);
            }
        }
    }
    out
}

/// Check one report's structure and numbers against the statistics.
pub fn check_report<S: std::hash::BuildHasher>(
    file: &str,
    domain: &str,
    text: &str,
    nodes: &HashMap<&str, &NodeStats, S>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let hs = headings(text);
    let lines: Vec<&str> = text.lines().collect();
    let structure =
        |line: u32, msg: String| Problem::warning(file, "report-structure", msg).at(line, 1);
    let out_of_order = |line: u32, what: &str, want: &str, found: &[&str]| {
        structure(
            line,
            format!("{what} must {want} in this order, found {found:?}"),
        )
    };
    // the fixed head: # <Domain> 域测试报告, ## 总览, ### 分析范围 / 总体结论 / 下一阶段建议
    match hs.first() {
        Some(h) if h.level == 1 && h.text.ends_with("域测试报告") => {}
        Some(h) => out.push(structure(
            h.line,
            format!(
                "the report must open with \"# <Domain> 域测试报告\", found {:?}",
                h.text
            ),
        )),
        None => {
            out.push(structure(
                1,
                "no headings: the report must open with \"# <Domain> 域测试报告\"".into(),
            ));
            return out;
        }
    }
    let overview = hs.iter().position(|h| h.level == 2 && h.text == "总览");
    match overview {
        Some(1) => {}
        Some(i) => out.push(structure(
            hs[i].line,
            "## 总览 must come right after the title".into(),
        )),
        None => out.push(structure(hs[0].line, "## 总览 is missing".into())),
    }
    if let Some(i) = overview {
        let subs: Vec<&Heading> = hs[i + 1..]
            .iter()
            .take_while(|h| h.level > 2)
            .filter(|h| h.level == 3)
            .collect();
        let names: Vec<&str> = subs.iter().map(|h| h.text.as_str()).collect();
        if names.get(..3) != Some(&OVERVIEW_SECTIONS[..]) {
            let want = format!("start with ### {}", OVERVIEW_SECTIONS.join(", ### "));
            out.push(out_of_order(hs[i].line, "## 总览", &want, &names));
        }
        // 总体结论: the domain's historical and latest numbers
        if let Some(h) = subs.iter().find(|h| h.text == "总体结论") {
            if let Some(n) = nodes.get(domain) {
                let sec = Section::under(file, &lines, &hs, h, domain);
                out.extend(check_conclusion(&sec, n));
            }
        }
    }
    // layers and their nodes
    let mut path: Vec<(usize, String)> = Vec::new();
    let body_start = overview.unwrap_or(1);
    let mut i = body_start;
    while i < hs.len() {
        let h = &hs[i];
        if h.level <= 2 && h.text != "总览" {
            path.clear();
        }
        if h.level == 2 && h.text == "总览" {
            // skip the overview's subsections
            i += 1;
            while i < hs.len() && hs[i].level > 2 {
                i += 1;
            }
            continue;
        }
        if NODE_SECTIONS.contains(&h.text.as_str()) {
            i += 1;
            continue;
        }
        path.retain(|(l, _)| *l < h.level);
        path.push((h.level, h.text.clone()));
        // this node's own subsections: deeper headings up to its first child node
        let mut subs = Vec::new();
        let mut has_child = false;
        let mut k = i + 1;
        while k < hs.len() && hs[k].level > h.level {
            if NODE_SECTIONS.contains(&hs[k].text.as_str()) {
                if !has_child {
                    subs.push(&hs[k]);
                }
            } else {
                has_child = true;
            }
            k += 1;
        }
        let node_path = std::iter::once(domain)
            .chain(path.iter().map(|(_, t)| t.as_str()))
            .collect::<Vec<_>>()
            .join("/");
        if h.level >= 2 && (!subs.is_empty() || !has_child) {
            let names: Vec<&str> = subs.iter().map(|s| s.text.as_str()).collect();
            if names != NODE_SECTIONS {
                let want = format!("have {}", NODE_SECTIONS.join(", "));
                out.push(out_of_order(
                    h.line,
                    &format!("node {node_path:?}"),
                    &want,
                    &names,
                ));
            }
            if let Some(p) = subs.iter().find(|s| s.text == "通过率") {
                match nodes.get(node_path.as_str()) {
                    Some(n) => {
                        let sec = Section::under(file, &lines, &hs, p, &node_path);
                        out.extend(check_block(&sec, n));
                    }
                    None => out.push(
                        Problem::warning(
                            file,
                            "report-unknown-node",
                            format!("node {node_path:?} has no logs"),
                        )
                        .at(h.line, 1),
                    ),
                }
            }
        }
        i += 1;
    }
    out
}

/// The body of one section of a report (0-based lines `start..end`) and the node
/// its numbers speak of.
struct Section<'a> {
    file: &'a str,
    lines: &'a [&'a str],
    start: usize,
    end: usize,
    node: &'a str,
}

impl<'a> Section<'a> {
    /// The lines under heading `h`, up to the next heading of its level or higher.
    fn under(
        file: &'a str,
        lines: &'a [&'a str],
        hs: &[Heading],
        h: &Heading,
        node: &'a str,
    ) -> Self {
        let end = hs
            .iter()
            .find(|x| x.line > h.line && x.level <= h.level)
            .map_or(lines.len(), |x| x.line as usize - 1);
        Section {
            file,
            lines,
            start: h.line as usize,
            end,
            node,
        }
    }

    /// Its lines with their 0-based index in the report.
    fn lines(&self) -> impl Iterator<Item = (usize, &'a str)> {
        self.lines
            .iter()
            .copied()
            .enumerate()
            .take(self.end)
            .skip(self.start)
    }

    /// `field` on line `line` (0-based) says `report` where the logs say `logs`.
    fn stale(&self, line: usize, field: &str, report: &str, logs: &str) -> Problem {
        let node = self.node;
        Problem::warning(
            self.file,
            "report-stale",
            format!("node {node:?}: {field} is {report} in the report but {logs} in the logs"),
        )
        .at(line as u32 + 1, 1)
    }
}

/// The numbers of one 通过率 block (`- field: value` lines).
fn check_block(sec: &Section, n: &NodeStats) -> Vec<Problem> {
    let want: [(&str, String); 8] = [
        ("totalRuns", n.historical.total_runs.to_string()),
        ("passedRuns", n.historical.passed_runs.to_string()),
        ("failedRuns", n.historical.failed_runs.to_string()),
        (
            "historicalSuccessRate",
            fmt_rate(n.historical.historical_success_rate),
        ),
        ("latestCaseCount", n.latest.latest_case_count.to_string()),
        (
            "latestPassedCases",
            n.latest.latest_passed_cases.to_string(),
        ),
        (
            "latestFailedCases",
            n.latest.latest_failed_cases.to_string(),
        ),
        ("latestSuccessRate", fmt_rate(n.latest.latest_success_rate)),
    ];
    let mut out = Vec::new();
    for (i, l) in sec.lines() {
        let t = l.trim().trim_start_matches(['-', '*']).trim();
        let Some((k, v)) = t.split_once(':').or_else(|| t.split_once('：')) else {
            continue;
        };
        let k = k.trim().trim_matches('`');
        let v = v.trim().trim_matches('`').trim();
        if let Some((_, logs)) = want.iter().find(|(f, _)| *f == k) {
            if !same_number(v, logs) {
                out.push(sec.stale(i, k, v, logs));
            }
        }
    }
    out
}

/// Numbers compare as numbers (`70%` = `70.0%`); `—`, `-`, `N/A` all mean no rate.
fn same_number(report: &str, logs: &str) -> bool {
    let norm =
        |s: &str| -> Option<f64> { s.trim().trim_end_matches('%').trim().parse::<f64>().ok() };
    match (norm(report), norm(logs)) {
        (Some(a), Some(b)) => (a - b).abs() < 0.05,
        (None, None) => true,
        _ => false,
    }
}

/// 总体结论: `N 次 raw runs`, `N 次 passed`, `N 次 failed`, `historicalSuccessRate=X%`,
/// `A / B 个 case`, `latestSuccessRate=X%`.
fn check_conclusion(sec: &Section, n: &NodeStats) -> Vec<Problem> {
    let mut out = Vec::new();
    let rate_after = |l: &str, key: &str| -> Option<String> {
        let at = l.find(key)? + key.len();
        let rest = l[at..].trim_start_matches(['=', ':', ' ', '`']);
        let v: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '—' || *c == '-')
            .collect();
        (!v.is_empty()).then_some(v)
    };
    for (i, l) in sec.lines() {
        let checks: [(&str, Option<String>, String); 6] = [
            (
                "totalRuns",
                num_before(l, "次 raw runs"),
                n.historical.total_runs.to_string(),
            ),
            (
                "passedRuns",
                num_before(l, "次 passed"),
                n.historical.passed_runs.to_string(),
            ),
            (
                "failedRuns",
                num_before(l, "次 failed"),
                n.historical.failed_runs.to_string(),
            ),
            (
                "historicalSuccessRate",
                rate_after(l, "historicalSuccessRate"),
                fmt_rate(n.historical.historical_success_rate),
            ),
            (
                "latestSuccessRate",
                rate_after(l, "latestSuccessRate"),
                fmt_rate(n.latest.latest_success_rate),
            ),
            (
                "latestCaseCount",
                num_before(l, "个 case"),
                n.latest.latest_case_count.to_string(),
            ),
        ];
        for (field, found, logs) in checks {
            if let Some(v) = found {
                if !same_number(&v, &logs) {
                    out.push(sec.stale(i, field, &v, &logs));
                }
            }
        }
        if l.contains("个 case") {
            if let Some(p) = case_passed(l) {
                let logs = n.latest.latest_passed_cases.to_string();
                if !same_number(&p, &logs) {
                    out.push(sec.stale(i, "latestPassedCases", &p, &logs));
                }
            }
        }
    }
    out
}

/// The number written just before `marker` (`12 次 raw runs` → 12; `A / B 个 case` → B).
fn num_before(l: &str, marker: &str) -> Option<String> {
    let at = l.find(marker)?;
    last_number(l[..at].trim_end().trim_end_matches('`'))
}

/// `A / B 个 case` → A.
fn case_passed(l: &str) -> Option<String> {
    let at = l.find("个 case")?;
    let head = &l[..at];
    let slash = head.rfind('/')?;
    last_number(head[..slash].trim_end().trim_end_matches('`').trim_end())
}

/// The digits `s` ends in, if any (`12 次` → none, `共 12` → 12).
fn last_number(s: &str) -> Option<String> {
    let digits: String = s.chars().rev().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then(|| digits.chars().rev().collect())
}

/// A report skeleton for each domain with the computed 通过率 blocks and evidence,
/// in the seed's heading order; the parts that need a person's judgement are left
/// as HTML comments for the author.
pub fn markdown(ws: &Workspace, nodes: &[NodeStats]) -> String {
    let mut out = String::new();
    for d in nodes.iter().filter(|n| n.kind == NodeKind::Domain) {
        let domain = d.path.as_str();
        let _ = writeln!(out, "# {domain} 域测试报告\n\n## 总览\n\n### 分析范围\n");
        let _ = writeln!(out, "- raw logs 范围: `tests/logs/{domain}/**`");
        let scopes: Vec<&str> = nodes
            .iter()
            .filter(|n| {
                n.kind != NodeKind::Case
                    && n.kind != NodeKind::Domain
                    && stats::under(&n.path, domain)
            })
            .filter(|n| {
                !nodes.iter().any(|c| {
                    c.kind != NodeKind::Case && c.path.starts_with(&format!("{}/", n.path))
                })
            })
            .map(|n| n.path.as_str())
            .collect();
        if !scopes.is_empty() {
            let list: Vec<String> = scopes.iter().map(|s| format!("`{s}`")).collect();
            let _ = writeln!(out, "- 已分析 scope: {}", list.join("、"));
        }
        let h = &d.historical;
        let l = &d.latest;
        let _ = writeln!(
            out,
            "\n### 总体结论\n\n- 历史总数据: `{}` 次 raw runs，其中 `{}` 次 passed、`{}` 次 failed，historicalSuccessRate=`{}`\n- 最新总数据: `{} / {}` 个 case 的最新一轮 run 为 passed，latestSuccessRate=`{}`\n- 当前结论: <!-- 由作者填写 -->\n\n### 下一阶段建议\n\n- <!-- 由作者填写 -->\n",
            h.total_runs,
            h.passed_runs,
            h.failed_runs,
            fmt_rate(h.historical_success_rate),
            l.latest_passed_cases,
            l.latest_case_count,
            fmt_rate(l.latest_success_rate)
        );
        for n in nodes.iter().filter(|n| stats::under(&n.path, domain)) {
            let depth = n.path.split('/').count();
            match n.kind {
                NodeKind::Layer => {
                    let _ = writeln!(out, "## {}\n", last(&n.path));
                }
                NodeKind::Suite | NodeKind::Group => {
                    let level = depth.min(6);
                    let sub = (level + 1).clamp(5, 6);
                    let hashes = "#".repeat(level);
                    let subh = "#".repeat(sub);
                    let _ = writeln!(out, "{hashes} {}\n\n{subh} 证据\n", last(&n.path));
                    for c in nodes
                        .iter()
                        .filter(|c| c.kind == NodeKind::Case && parent(&c.path) == n.path)
                    {
                        let case_id = last(&c.path);
                        if let Some(r) = ws
                            .logs
                            .of_case(parent(&c.path), case_id)
                            .filter(|r| r.status.is_finished())
                            .last()
                        {
                            let _ = writeln!(
                                out,
                                "- `{case_id}` | run=`{}` | status=`{}`",
                                r.run_id,
                                r.status.as_str()
                            );
                        }
                    }
                    let _ = writeln!(out, "\n{subh} 通过率\n\n{}", markdown_block(n));
                    let fail = if n.historical.failed_runs == 0 {
                        format!("- {NO_FAILURES}")
                    } else {
                        "- <!-- 由作者填写 -->".to_owned()
                    };
                    let _ = writeln!(
                        out,
                        "{subh} 失败分析\n\n{fail}\n\n{subh} 当前评估\n\n- <!-- 由作者填写 -->\n\n{subh} 下一步建议\n\n- <!-- 由作者填写 -->\n"
                    );
                }
                _ => {}
            }
        }
    }
    out
}

fn last(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(a, _)| a)
}
