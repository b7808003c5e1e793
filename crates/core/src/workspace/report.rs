//! `tests/report/<domain>/report.md` (seed 000 §7): testdeck never writes it; it
//! checks the fixed headings and every 通过率 number against the logs (`report-stale`),
//! and prints the skeleton with computed blocks (`stats --markdown`).

use super::Workspace;
use super::stats::{self, NodeKind, NodeStats, Window, fmt_rate};
use crate::problem::Problem;
use std::collections::HashMap;
use std::ops::Range;

mod draft;
mod update;

pub use draft::{Draft, Facts, draft};
pub use update::{Change, GONE, Update, unified_diff, update, update_text};

/// What a draft writes where only a person can write: `validate` reports each
/// line that still holds it as `report-unwritten`.
pub const PLACEHOLDER: &str = "【待填写】";

/// The fixed subsections of every analysed node, in order.
pub(crate) const NODE_SECTIONS: [&str; 5] =
    ["证据", "通过率", "失败分析", "当前评估", "下一步建议"];
/// The fixed subsections of 总览, in order.
pub(crate) const OVERVIEW_SECTIONS: [&str; 3] = ["分析范围", "总体结论", "下一阶段建议"];
/// What 失败分析 says when there is no failed run (seed 000 §7).
pub(crate) const NO_FAILURES: &str = "当前没有 failed run，因此无法给出失败模式结论。";

/// One Markdown heading of a report (`line` from 1).
#[derive(Debug, Clone)]
pub(crate) struct Heading {
    pub(crate) level: usize,
    pub(crate) text: String,
    pub(crate) line: u32,
}

pub(crate) fn headings(text: &str) -> Vec<Heading> {
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

/// A node of a report: a heading that is not one of the fixed subsections, its
/// path (`domain/layer/…`, from the heading texts), its own subsections (the
/// fixed ones before its first child node) and whether a child node follows.
#[derive(Debug, Clone)]
pub(crate) struct NodeHeading {
    /// Index into the report's headings.
    pub(crate) at: usize,
    pub(crate) path: String,
    /// Indexes into the report's headings.
    pub(crate) subs: Vec<usize>,
    pub(crate) has_child: bool,
}

impl NodeHeading {
    /// An analysed node: it has subsections, or no child node (seed 000 §7).
    pub(crate) fn analysed(&self, hs: &[Heading]) -> bool {
        hs[self.at].level >= 2 && (!self.subs.is_empty() || !self.has_child)
    }
}

/// The report's headings read as §7 reads them: the title, `## 总览` and its
/// subsections, then the nodes of the layers.
#[derive(Debug, Clone)]
pub(crate) struct Outline {
    pub(crate) hs: Vec<Heading>,
    /// The index of `## 总览`.
    pub(crate) overview: Option<usize>,
    /// The indexes of `## 总览`'s `###` subsections.
    pub(crate) overview_subs: Vec<usize>,
    pub(crate) nodes: Vec<NodeHeading>,
}

impl Outline {
    pub(crate) fn read(text: &str, domain: &str) -> Outline {
        let hs = headings(text);
        let overview = hs.iter().position(|h| h.level == 2 && h.text == "总览");
        let overview_subs = overview.map_or_else(Vec::new, |i| {
            (i + 1..hs.len())
                .take_while(|&k| hs[k].level > 2)
                .filter(|&k| hs[k].level == 3)
                .collect()
        });
        let mut nodes = Vec::new();
        let mut path: Vec<(usize, String)> = Vec::new();
        let mut i = overview.unwrap_or(1);
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
                        subs.push(k);
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
            nodes.push(NodeHeading {
                at: i,
                path: node_path,
                subs,
                has_child,
            });
            i += 1;
        }
        Outline {
            hs,
            overview,
            overview_subs,
            nodes,
        }
    }

    /// The 0-based lines under heading `at` (its body), up to the next heading of
    /// its level or higher; `lines`: the report's line count.
    pub(crate) fn body(&self, at: usize, lines: usize) -> std::ops::Range<usize> {
        let h = &self.hs[at];
        let end = self.hs[at + 1..]
            .iter()
            .find(|x| x.level <= h.level)
            .map_or(lines, |x| x.line as usize - 1);
        h.line as usize..end
    }

    /// The subsection `name` of a node or of 总览, as an index into the headings.
    pub(crate) fn sub(&self, subs: &[usize], name: &str) -> Option<usize> {
        subs.iter().copied().find(|&k| self.hs[k].text == name)
    }
}

/// Check one report's structure and numbers against the statistics.
pub fn check_report<S: std::hash::BuildHasher>(
    file: &str,
    domain: &str,
    text: &str,
    nodes: &HashMap<&str, &NodeStats, S>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let outline = Outline::read(text, domain);
    let hs = &outline.hs;
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
    match outline.overview {
        Some(1) => {}
        Some(i) => out.push(structure(
            hs[i].line,
            "## 总览 must come right after the title".into(),
        )),
        None => out.push(structure(hs[0].line, "## 总览 is missing".into())),
    }
    if let Some(i) = outline.overview {
        let names: Vec<&str> = outline
            .overview_subs
            .iter()
            .map(|&k| hs[k].text.as_str())
            .collect();
        if names.get(..3) != Some(&OVERVIEW_SECTIONS[..]) {
            let want = format!("start with ### {}", OVERVIEW_SECTIONS.join(", ### "));
            out.push(out_of_order(hs[i].line, "## 总览", &want, &names));
        }
        // 总体结论: the domain's historical and latest numbers
        if let (Some(k), Some(n)) = (
            outline.sub(&outline.overview_subs, "总体结论"),
            nodes.get(domain),
        ) {
            let sec = Section::under(file, &lines, &outline, k, domain);
            out.extend(check_conclusion(&sec, n));
        }
    }
    // layers and their nodes
    for node in &outline.nodes {
        if !node.analysed(hs) {
            continue;
        }
        let h = &hs[node.at];
        let names: Vec<&str> = node.subs.iter().map(|&s| hs[s].text.as_str()).collect();
        if names != NODE_SECTIONS {
            let want = format!("have {}", NODE_SECTIONS.join(", "));
            out.push(out_of_order(
                h.line,
                &format!("node {:?}", node.path),
                &want,
                &names,
            ));
        }
        if let Some(p) = outline.sub(&node.subs, "通过率") {
            match nodes.get(node.path.as_str()) {
                Some(n) => {
                    let sec = Section::under(file, &lines, &outline, p, &node.path);
                    out.extend(check_block(&sec, n));
                }
                None => out.push(
                    Problem::warning(
                        file,
                        "report-unknown-node",
                        format!("node {:?} has no logs", node.path),
                    )
                    .at(h.line, 1),
                ),
            }
        }
    }
    out.extend(unwritten(file, text));
    out
}

/// The lines that still hold [`PLACEHOLDER`] (outside code blocks), as
/// `report-unwritten` warnings naming the section they are in.
fn unwritten(file: &str, text: &str) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut fence = false;
    let mut section = String::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let n = l.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&n) && l[n..].starts_with(' ') {
            l[n..].trim().clone_into(&mut section);
            continue;
        }
        if let Some(at) = l.find(PLACEHOLDER) {
            let col = l[..at].chars().count() as u32 + 1;
            out.push(
                Problem::warning(
                    file,
                    "report-unwritten",
                    format!("{section:?} is still a placeholder: a person writes it"),
                )
                .at(i as u32 + 1, col),
            );
        }
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
    /// The lines under heading `at`, up to the next heading of its level or higher.
    fn under(
        file: &'a str,
        lines: &'a [&'a str],
        outline: &Outline,
        at: usize,
        node: &'a str,
    ) -> Self {
        let body = outline.body(at, lines.len());
        Section {
            file,
            lines,
            start: body.start,
            end: body.end,
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

/// The fields of a 通过率 block and their values in the logs.
pub(crate) fn block_values(n: &NodeStats) -> [(&'static str, String); 8] {
    [
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
    ]
}

/// The field and the place of its value in a `- field: value` line of a 通过率
/// block (the value without its backticks).
pub(crate) fn block_field(l: &str) -> Option<(&str, Range<usize>)> {
    let colon = [l.find(':'), l.find('：')].into_iter().flatten().min()?;
    let key = l[..colon].trim().trim_start_matches(['-', '*']).trim();
    let key = key.trim_matches('`');
    let sep = if l[colon..].starts_with(':') {
        1
    } else {
        '：'.len_utf8()
    };
    let rest = &l[colon + sep..];
    let lead = rest.len() - rest.trim_start().len();
    let v = rest.trim();
    let v_start = colon + sep + lead;
    let inner = v.trim_matches('`');
    let ticks = v.len() - v.trim_start_matches('`').len();
    let inner_trim = inner.trim();
    let pad = inner.len() - inner.trim_start().len();
    let start = v_start + ticks + pad;
    Some((key, start..start + inner_trim.len()))
}

/// The numbers of one 通过率 block (`- field: value` lines).
fn check_block(sec: &Section, n: &NodeStats) -> Vec<Problem> {
    let want = block_values(n);
    let mut out = Vec::new();
    for (i, l) in sec.lines() {
        let Some((k, span)) = block_field(l) else {
            continue;
        };
        if let Some((_, logs)) = want.iter().find(|(f, _)| *f == k) {
            let v = &l[span];
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

/// The numbers a 总体结论 line states and where: `N 次 raw runs`, `N 次 passed`,
/// `N 次 failed`, `historicalSuccessRate=X%`, `A / B 个 case`, `latestSuccessRate=X%`
/// (a rate's place takes its `%` when it has one).
pub(crate) fn conclusion_fields(l: &str) -> Vec<(&'static str, Range<usize>)> {
    let rate_after = |key: &str| -> Option<Range<usize>> {
        let at = l.find(key)? + key.len();
        let rest = &l[at..];
        let skip = rest.len() - rest.trim_start_matches(['=', ':', ' ', '`']).len();
        let start = at + skip;
        let len: usize = l[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '—' | '-'))
            .map(char::len_utf8)
            .sum();
        let pct = usize::from(len > 0 && l[start + len..].starts_with('%'));
        (len > 0).then_some(start..start + len + pct)
    };
    let mut out = Vec::new();
    for (field, span) in [
        ("totalRuns", num_before(l, "次 raw runs")),
        ("passedRuns", num_before(l, "次 passed")),
        ("failedRuns", num_before(l, "次 failed")),
        ("historicalSuccessRate", rate_after("historicalSuccessRate")),
        ("latestPassedCases", case_passed(l)),
        ("latestCaseCount", num_before(l, "个 case")),
        ("latestSuccessRate", rate_after("latestSuccessRate")),
    ] {
        if let Some(s) = span {
            out.push((field, s));
        }
    }
    out
}

/// The logs' value of a 总体结论 field.
pub(crate) fn conclusion_value(field: &str, n: &NodeStats) -> Option<String> {
    block_values(n)
        .into_iter()
        .find(|(f, _)| *f == field)
        .map(|(_, v)| v)
}

/// 总体结论: the numbers of [`conclusion_fields`].
fn check_conclusion(sec: &Section, n: &NodeStats) -> Vec<Problem> {
    let mut out = Vec::new();
    for (i, l) in sec.lines() {
        for (field, span) in conclusion_fields(l) {
            let Some(logs) = conclusion_value(field, n) else {
                continue;
            };
            let v = l[span].trim_end_matches('%');
            if !same_number(v, &logs) {
                out.push(sec.stale(i, field, v, &logs));
            }
        }
    }
    out
}

/// The place of the number written just before `marker` (`12 次 raw runs` → 12;
/// `A / B 个 case` → B).
fn num_before(l: &str, marker: &str) -> Option<Range<usize>> {
    let at = l.find(marker)?;
    last_number(l, l[..at].trim_end().trim_end_matches('`').len())
}

/// `A / B 个 case` → the place of A.
fn case_passed(l: &str) -> Option<Range<usize>> {
    let at = l.find("个 case")?;
    let slash = l[..at].rfind('/')?;
    last_number(
        l,
        l[..slash].trim_end().trim_end_matches('`').trim_end().len(),
    )
}

/// The digits `l[..end]` ends in, if any (`12 次` → none, `共 12` → 12).
fn last_number(l: &str, end: usize) -> Option<Range<usize>> {
    let n = l[..end]
        .bytes()
        .rev()
        .take_while(u8::is_ascii_digit)
        .count();
    (n > 0).then_some(end - n..end)
}

/// The draft of each domain (as `report --draft` writes it) with the numbers of
/// `nodes`: what `stats --markdown` prints.
pub fn markdown(ws: &Workspace, nodes: &[NodeStats]) -> String {
    let mut out = String::new();
    for d in nodes.iter().filter(|n| n.kind == NodeKind::Domain) {
        if let Ok(f) = Facts::of(ws, nodes, &d.path) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&f.draft_text());
        }
    }
    out
}
