//! `report --draft`: the facts the logs give a domain's report (seed 000 §7),
//! and the whole skeleton written from them, each part only a person can write
//! left as [`PLACEHOLDER`].

use super::super::Workspace;
use super::super::logs::{self, RawRun, RunStatus};
use super::super::stats::{self, NodeKind, NodeStats, Window, fmt_rate, markdown_block};
use super::super::tree::STABLE_GROUPS;
use super::{NO_FAILURES, PLACEHOLDER};
use crate::sanitize::escape;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

/// The longest name (caseId, runId, event name) a report line quotes, in characters.
const NAME_CHARS: usize = 200;

/// What the logs say about one domain, as its report states it.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The domain (the first folder of its scopes).
    pub domain: String,
    /// The domain's nodes (`stats`), by path.
    nodes: HashMap<String, NodeStats>,
    /// The domain's folders (not cases), in tree order.
    folders: Vec<(String, NodeKind)>,
    /// The nodes a report analyses: each case's scope without its stable groups
    /// (never above the suite), in tree order.
    analysed: Vec<String>,
    /// The evidence lines of each case (`scope/caseId`), in tree order.
    evidence: Vec<(String, Vec<String>)>,
    /// 分析范围's lines the logs give: the runs counted, the runs left out.
    scope_lines: [String; 2],
}

/// A case's scope, a folder name or a run's id as a report line quotes it: no
/// backtick, no control character, at most [`NAME_CHARS`] characters.
pub(crate) fn quoted(s: &str) -> String {
    let e = escape(s);
    let mut out: String = e.chars().filter(|&c| c != '`').take(NAME_CHARS).collect();
    if e.chars().filter(|&c| c != '`').count() > NAME_CHARS {
        out.push('…');
    }
    out
}

/// The node a case of scope `scope` is analysed under: its scope without the
/// stable groups it ends in, never above `domain/layer/suite`.
fn analysed_node(scope: &str) -> String {
    let mut segs: Vec<&str> = scope.split('/').filter(|s| !s.is_empty()).collect();
    while segs.len() > 3 && segs.last().is_some_and(|s| STABLE_GROUPS.contains(s)) {
        segs.pop();
    }
    segs.join("/")
}

fn last(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(a, _)| a)
}

/// The level of a node's heading (`domain/layer` → 2, suite 3, groups deeper)
/// and of its subsections (`#####`, or `######` below that).
pub(crate) fn levels(path: &str) -> (usize, usize) {
    let level = path.split('/').count().clamp(2, 6);
    (level, (level + 1).clamp(5, 6))
}

impl Facts {
    /// The facts of `domain` in `ws`, its numbers from `stats` (no window).
    pub fn read(ws: &Workspace, domain: &str) -> Result<Facts, String> {
        let nodes = stats::compute_with(
            &ws.tests,
            &ws.logs,
            &Window::default(),
            &ws.config.insights,
            None,
        );
        Facts::of(ws, &nodes, domain)
    }

    /// The facts of `domain` from `nodes` (as `stats` computed them).
    pub fn of(ws: &Workspace, nodes: &[NodeStats], domain: &str) -> Result<Facts, String> {
        if domain.is_empty()
            || domain.contains(['/', '\\'])
            || domain.starts_with('.')
            || domain == "temp"
        {
            return Err(format!("{:?} is not a domain", escape(domain)));
        }
        if !nodes
            .iter()
            .any(|n| n.kind == NodeKind::Domain && n.path == domain)
        {
            return Err(format!(
                "no domain {:?}: no case under tests/{0}/ and no run under tests/logs/{0}/",
                escape(domain)
            ));
        }
        let mine: Vec<&NodeStats> = nodes
            .iter()
            .filter(|n| stats::under(&n.path, domain))
            .collect();
        let folders: Vec<(String, NodeKind)> = mine
            .iter()
            .filter(|n| n.kind != NodeKind::Case)
            .map(|n| (n.path.clone(), n.kind))
            .collect();
        let mut analysed: Vec<String> = Vec::new();
        let mut evidence = Vec::new();
        for c in mine.iter().filter(|n| n.kind == NodeKind::Case) {
            let a = analysed_node(parent(&c.path));
            if a.split('/').count() >= 2 && !analysed.contains(&a) {
                analysed.push(a);
            }
            evidence.push((
                c.path.clone(),
                case_evidence(&ws.root, &ws.logs, parent(&c.path), last(&c.path)),
            ));
        }
        // tree order: the order of the folders
        analysed.sort_by_key(|a| folders.iter().position(|(p, _)| p == a));
        let scope_lines = scope_lines(&ws.logs, domain);
        Ok(Facts {
            domain: domain.to_owned(),
            nodes: mine
                .into_iter()
                .map(|n| (n.path.clone(), n.clone()))
                .collect(),
            folders,
            analysed,
            evidence,
            scope_lines,
        })
    }

    /// A node's statistics.
    pub fn node(&self, path: &str) -> Option<&NodeStats> {
        self.nodes.get(path)
    }

    /// The nodes a draft analyses, in tree order.
    pub fn analysed(&self) -> &[String] {
        &self.analysed
    }

    /// The evidence lines of the node `path`: those of its cases that are not
    /// under one of `deeper` (the nodes below it that have their own evidence).
    pub fn evidence(&self, path: &str, deeper: &[&str]) -> Vec<String> {
        self.evidence
            .iter()
            .filter(|(case, _)| {
                stats::under(case, path)
                    && !deeper
                        .iter()
                        .any(|d| *d != path && stats::under(d, path) && stats::under(case, d))
            })
            .flat_map(|(_, lines)| lines.iter().cloned())
            .collect()
    }

    /// 分析范围's lines the logs give: `- 计入 run: …` and `- 未计入 run: …`.
    pub fn scope_lines(&self) -> &[String; 2] {
        &self.scope_lines
    }

    /// 总体结论's two lines of numbers.
    pub(crate) fn conclusion_lines(&self) -> [String; 2] {
        let Some(d) = self.nodes.get(&self.domain) else {
            return [String::new(), String::new()];
        };
        let (h, l) = (&d.historical, &d.latest);
        [
            format!(
                "- 历史总数据: `{}` 次 raw runs，其中 `{}` 次 passed、`{}` 次 failed，historicalSuccessRate=`{}`",
                h.total_runs,
                h.passed_runs,
                h.failed_runs,
                fmt_rate(h.historical_success_rate)
            ),
            format!(
                "- 最新总数据: `{} / {}` 个 case 的最新一轮 run 为 passed，latestSuccessRate=`{}`",
                l.latest_passed_cases,
                l.latest_case_count,
                fmt_rate(l.latest_success_rate)
            ),
        ]
    }

    /// The five subsections of an analysed node at `sub` (the heading level),
    /// the evidence those of `deeper` do not hold.
    pub(crate) fn node_sections(&self, path: &str, sub: usize, deeper: &[&str]) -> String {
        let h = "#".repeat(sub);
        let mut out = format!("{h} 证据\n\n");
        let ev = self.evidence(path, deeper);
        if ev.is_empty() {
            out.push_str("- 当前没有已结束的 run。\n");
        }
        for l in ev {
            out.push_str(&l);
            out.push('\n');
        }
        let _ = write!(out, "\n{h} 通过率\n\n");
        if let Some(n) = self.nodes.get(path) {
            out.push_str(&markdown_block(n));
        }
        let failed = self
            .nodes
            .get(path)
            .is_some_and(|n| n.historical.failed_runs > 0);
        let fail = if failed { PLACEHOLDER } else { NO_FAILURES };
        let _ = write!(
            out,
            "\n{h} 失败分析\n\n- {fail}\n\n{h} 当前评估\n\n- {PLACEHOLDER}\n\n{h} 下一步建议\n\n- {PLACEHOLDER}\n"
        );
        out
    }

    /// The headings from below `above` (a folder already written, or none) down
    /// to `path`, each analysed one with its subsections; `levels` of `above` (its
    /// heading's level in the report) set the levels below it.
    pub(crate) fn node_text(&self, path: &str, above: Option<(&str, usize)>) -> String {
        let mut out = String::new();
        let (from, base) = above.map_or((self.domain.as_str(), 1), |(p, l)| (p, l));
        let from_depth = from.split('/').count();
        let segs: Vec<&str> = path.split('/').collect();
        let deeper: Vec<&str> = self.analysed.iter().map(String::as_str).collect();
        for d in from_depth + 1..=segs.len() {
            let p = segs[..d].join("/");
            let level = (base + d - from_depth).min(6);
            let _ = writeln!(out, "{} {}\n", "#".repeat(level), quoted(segs[d - 1]));
            if p == path || self.analysed.contains(&p) {
                let sub = (level + 1).clamp(5, 6);
                out.push_str(&self.node_sections(&p, sub, &deeper));
                out.push('\n');
            }
        }
        out
    }

    /// The whole draft.
    pub fn draft_text(&self) -> String {
        let domain = quoted(&self.domain);
        let mut out = format!("# {domain} 域测试报告\n\n## 总览\n\n### 分析范围\n\n");
        let _ = writeln!(out, "- raw logs 范围: `tests/logs/{domain}/**`");
        if !self.analysed.is_empty() {
            let list: Vec<String> = self
                .analysed
                .iter()
                .map(|s| format!("`{}`", quoted(s)))
                .collect();
            let _ = writeln!(out, "- 已分析 scope: {}", list.join("、"));
        }
        for l in &self.scope_lines {
            let _ = writeln!(out, "{l}");
        }
        let [hist, latest] = self.conclusion_lines();
        let _ = write!(
            out,
            "\n### 总体结论\n\n{hist}\n{latest}\n- 当前结论: {PLACEHOLDER}\n\n### 下一阶段建议\n\n- {PLACEHOLDER}\n"
        );
        let deeper: Vec<&str> = self.analysed.iter().map(String::as_str).collect();
        for (path, kind) in &self.folders {
            if *kind == NodeKind::Domain {
                continue;
            }
            let analysed = self.analysed.contains(path);
            let above = self
                .analysed
                .iter()
                .any(|a| stats::under(a, path) && a != path);
            if !analysed && !above {
                continue;
            }
            let (level, sub) = levels(path);
            let _ = write!(out, "\n{} {}\n", "#".repeat(level), quoted(last(path)));
            if analysed {
                out.push('\n');
                out.push_str(&self.node_sections(path, sub, &deeper));
            }
        }
        out
    }
}

/// The evidence of one case: its latest finished run, then each other failed
/// run (newest first), a failed one with its failed event's id and name.
fn case_evidence(root: &Path, logs: &logs::Logs, scope: &str, case_id: &str) -> Vec<String> {
    let runs: Vec<&RawRun> = logs
        .of_case(scope, case_id)
        .filter(|r| !r.is_temp() && r.status.is_finished())
        .collect();
    let Some(latest) = runs.last() else {
        return Vec::new();
    };
    let mut out = vec![evidence_line(root, latest)];
    for r in runs.iter().rev().skip(1) {
        if r.status == RunStatus::Failed {
            out.push(evidence_line(root, r));
        }
    }
    out
}

/// `- `caseId` | run=`runId` | status=`s``, a failed run with
/// `| event=`id` | name=`name`` of its first failed event.
fn evidence_line(root: &Path, r: &RawRun) -> String {
    let mut l = format!(
        "- `{}` | run=`{}` | status=`{}`",
        quoted(&r.case_id),
        quoted(&r.run_id),
        r.status.as_str()
    );
    if r.status == RunStatus::Failed {
        if let Some((id, name)) = first_failed_event(root, r) {
            if let Some(id) = id {
                let _ = write!(l, " | event=`{}`", quoted(&id));
            }
            let _ = write!(l, " | name=`{}`", quoted(&name));
        }
    }
    l
}

/// The id and name of a run's first failed event: an assertion, else an error,
/// else a step (the order `explain` gives its reason in).
fn first_failed_event(root: &Path, r: &RawRun) -> Option<(Option<String>, String)> {
    let file = root.join(&r.path).join(super::super::run_folder::TIMELINE);
    let (events, _) = logs::read_timeline(root, &file);
    let failed: Vec<_> = events
        .into_iter()
        .filter(super::super::failure::is_failure)
        .collect();
    ["assertion", "error", "step"]
        .iter()
        .find_map(|k| failed.iter().find(|e| e.kind == *k))
        .map(|e| (e.id.clone(), e.name.clone()))
}

/// `- 计入 run: …` (the finished runs and their dates) and `- 未计入 run: …`
/// (the domain's unfinished runs and why, the temp runs).
fn scope_lines(logs: &logs::Logs, domain: &str) -> [String; 2] {
    let mine = || {
        logs.runs
            .iter()
            .filter(move |r| stats::under(&r.scope, domain) && !r.is_temp())
    };
    let day = |r: &&RawRun| logs::run_id_time(&r.run_id).map(|t| t.date_naive());
    let counted: Vec<&RawRun> = mine().filter(|r| r.status.is_finished()).collect();
    let first = counted.iter().filter_map(day).min();
    let last_day = counted.iter().filter_map(day).max();
    let mut counted_line = format!("- 计入 run: `{}` 次", counted.len());
    if let (Some(a), Some(b)) = (first, last_day) {
        let _ = write!(counted_line, "，`{a}` 至 `{b}`");
    }
    let mut left: Vec<String> = Vec::new();
    let mut by_why: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in mine().filter(|r| !r.status.is_finished()) {
        let why = match r.status {
            RunStatus::InProgress if r.meta_broken => "meta.json 不合契约",
            RunStatus::InProgress => "未写完 meta.json",
            RunStatus::Cancelled => "已取消",
            _ => "已中断",
        };
        by_why.entry(why).or_default().push(format!(
            "`{}` 的 `{}`",
            quoted(&r.case_id),
            quoted(&r.run_id)
        ));
    }
    for (why, runs) in by_why {
        left.push(format!("{why}（{}）", runs.join("、")));
    }
    let temp = logs.runs.iter().filter(|r| r.is_temp()).count();
    if temp > 0 {
        left.push(format!(
            "`tests/logs/temp/**` 的 `{temp}` 次 run（temp 不进入 report）"
        ));
    }
    let left_line = if left.is_empty() {
        "- 未计入 run: 无".to_owned()
    } else {
        format!("- 未计入 run: {}", left.join("；"))
    };
    [counted_line, left_line]
}

/// A draft of a domain's report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Draft {
    /// The domain.
    pub domain: String,
    /// `tests/report/<domain>/report.md`.
    pub file: String,
    /// The report is there already (a draft is then never written).
    pub exists: bool,
    /// The draft.
    pub text: String,
}

/// The draft of `domain`'s report in `ws`.
pub fn draft(ws: &Workspace, domain: &str) -> Result<Draft, String> {
    let facts = Facts::read(ws, domain)?;
    let file = format!("tests/report/{domain}/report.md");
    let exists = std::fs::symlink_metadata(ws.root.join(&file)).is_ok();
    Ok(Draft {
        domain: domain.to_owned(),
        text: facts.draft_text(),
        exists,
        file,
    })
}

impl Draft {
    /// Write the draft where no report is (never over a file, never through a
    /// symbolic link): the folder made under `tests/report/`, the file through the
    /// atomic writer.
    pub fn write(&self, root: &Path) -> Result<(), String> {
        let dir = Path::new("tests/report").join(&self.domain);
        if let Some(link) = super::super::read::link_on_the_way(root, &dir.join("report.md")) {
            return Err(format!(
                "{link}: a symbolic link; testdeck writes no report through it"
            ));
        }
        if std::fs::symlink_metadata(root.join(&self.file)).is_ok() {
            return Err(format!(
                "{}: the report is there already; `report --update` brings it to the logs",
                self.file
            ));
        }
        // the guarded writer: no part a link, never over a file (`NEW`)
        super::super::read::write_beneath_with(
            root,
            &dir.join("report.md"),
            self.text.as_bytes(),
            super::super::read::WriteMode::NEW,
        )
        .map_err(|e| format!("{}: {e}", self.file))
    }
}
