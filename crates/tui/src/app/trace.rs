//! The trace pane: a Playwright `trace.zip` of the selected run read off the UI
//! thread (`FeatureWork::Trace`) and shown full screen — the action tree with the
//! failed action, the selected action's error, place and call log, the screencast
//! frames nearest its start and end, and sections for console and page errors,
//! network requests and the test's output.

use super::super::action::Command;
use super::super::feature_work::FeatureWork;
use super::super::image;
use super::effect::{EditTarget, Effect};
use super::list::{ListState, rows_for};
use super::live::Live;
use ratatui::layout::Rect;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::trace::{Action, ErrorSource, Frame, Stream, Trace};

/// Decoded frames a trace pane keeps; past it the cache starts over.
const FRAME_CACHE: usize = 48;

/// The sections of the trace pane, in Tab order (1 to 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Actions,
    Console,
    Network,
    Output,
}

pub const SECTIONS: [Section; 4] = [
    Section::Actions,
    Section::Console,
    Section::Network,
    Section::Output,
];

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::Actions => "Actions",
            Section::Console => "Console",
            Section::Network => "Network",
            Section::Output => "Output",
        }
    }

    fn index(self) -> usize {
        SECTIONS.iter().position(|s| *s == self).unwrap_or(0)
    }
}

/// One row of the action tree: its depth and the way down to it (indexes of the
/// top-level action, then of each child).
#[derive(Debug, Clone)]
struct Row {
    depth: usize,
    path: Vec<u32>,
}

/// One row of a text section, already sanitized, with its theme style name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRow {
    pub style: &'static str,
    pub text: String,
}

/// A trace read: the model, its rows and where the workspace is (to open sources).
#[derive(Debug, Clone)]
struct Ready {
    trace: Arc<Trace>,
    rows: Vec<Row>,
    console: Vec<TextRow>,
    network: Vec<TextRow>,
    output: Vec<TextRow>,
    /// The workspace root as the kernel spells it (a trace carries resolved paths).
    root_real: Option<PathBuf>,
}

#[derive(Debug, Clone)]
enum Load {
    Reading,
    /// Nothing of it could be read: the located problem.
    Failed(String),
    Ready(Box<Ready>),
}

/// Where the trace pane's parts go on a `w`×`h` terminal (drawing, the pictures'
/// protocol encoding and the lists' page sizes use the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceAreas {
    /// The header: version, browser, title (one row).
    pub header: Rect,
    /// The section tabs (one row).
    pub tabs: Rect,
    /// The body of a text section (console, network, output).
    pub body: Rect,
    /// The action list.
    pub list: Rect,
    /// The selected action: error, place, log.
    pub detail: Rect,
    /// The frames nearest the selected action's start and end: a caption row each,
    /// then the picture.
    pub start: Rect,
    pub end: Rect,
}

/// The areas of the trace pane on a terminal of `size`, for an action tree of
/// `rows` rows (a short tree leaves its room to the selected action's error).
pub fn areas(size: (u16, u16), rows: usize) -> TraceAreas {
    let (w, h) = size;
    let inner = Rect::new(1, 1, w.saturating_sub(2), h.saturating_sub(2));
    let header = Rect {
        height: 1.min(inner.height),
        ..inner
    };
    let tabs = Rect {
        y: inner.y + 1,
        height: 1.min(inner.height.saturating_sub(1)),
        ..inner
    };
    let body = Rect {
        y: inner.y + 2,
        height: inner.height.saturating_sub(2),
        ..inner
    };
    // the pictures beside the list: a little under half the width
    let right_w = if body.width >= 60 {
        body.width * 2 / 5
    } else {
        0
    };
    let left_w = body.width.saturating_sub(right_w + u16::from(right_w > 0));
    let rows = u16::try_from(rows).unwrap_or(u16::MAX).max(3);
    let list_h = (body.height * 9 / 20).max(3).min(rows).min(body.height);
    let list = Rect {
        width: left_w,
        height: list_h,
        ..body
    };
    let detail = Rect {
        y: body.y + list_h,
        height: body.height.saturating_sub(list_h),
        width: left_w,
        ..body
    };
    let right_x = body.x + left_w + 1;
    let half = body.height / 2;
    let start = Rect::new(right_x, body.y, right_w, half);
    let end = Rect::new(right_x, body.y + half, right_w, body.height - half);
    TraceAreas {
        header,
        tabs,
        body,
        list,
        detail,
        start,
        end,
    }
}

/// A picture's area less its caption row.
pub fn picture_body(r: Rect) -> Rect {
    Rect {
        y: r.y + 1,
        height: r.height.saturating_sub(1),
        ..r
    }
}

/// The trace pane: the file, what was read of it, the section shown, the cursors
/// and the frames decoded.
#[derive(Debug, Clone)]
pub struct TraceView {
    /// The `trace.zip` (inside its run folder).
    file: PathBuf,
    /// Its run-relative path.
    label: String,
    load: Load,
    section: Section,
    lists: [ListState; 4],
    frames: HashMap<String, image::State>,
}

/// What a key did to the trace pane.
#[derive(Debug, PartialEq, Eq)]
pub enum TraceOutcome {
    Stay,
    Close,
    /// `o`: the trace with its external opener.
    OpenExternal,
    /// Enter: the selected action whole (`TraceView::detail`) in the data overlay.
    Detail,
    /// `?`: the keys.
    Help,
    Say(&'static str),
}

/// The selected artifact of the live pane's run as a trace to read: `None` when
/// it is not a trace (kind `trace`, or a `.zip`); `Err` when it may not be read.
pub fn target(live: &Live, root: &Path) -> Option<Result<(PathBuf, PathBuf, String), String>> {
    let run = live.run()?;
    let a = run.artifacts.get(live.artifacts().cursor)?;
    let zip = Path::new(&a.path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    if a.kind != "trace" && !zip {
        return None;
    }
    let within = root.join(&run.path);
    // `file()` gives no path that leaves the run folder
    let Some(file) = a.file(&within) else {
        return Some(Err(format!(
            "refused: {} leaves the run folder",
            escape(&a.path)
        )));
    };
    if !a.exists {
        return Some(Err(format!("missing: {}", escape(&a.path))));
    }
    Some(Ok((file, within, a.path.clone())))
}

impl TraceView {
    /// The pane for `file` (run-relative `label`), being read.
    pub fn new(file: PathBuf, label: String) -> TraceView {
        TraceView {
            file,
            label,
            load: Load::Reading,
            section: Section::Actions,
            lists: [ListState::default(); 4],
            frames: HashMap::new(),
        }
    }

    /// Where its parts go on a terminal of `size`.
    pub fn areas(&self, size: (u16, u16)) -> TraceAreas {
        areas(size, self.len(Section::Actions))
    }

    /// The `trace.zip` shown.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Its run-relative path.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Still being read.
    pub fn reading(&self) -> bool {
        matches!(self.load, Load::Reading)
    }

    /// Why nothing of it could be read.
    pub fn failure(&self) -> Option<&str> {
        match &self.load {
            Load::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// The trace read.
    pub fn trace(&self) -> Option<&Trace> {
        match &self.load {
            Load::Ready(r) => Some(&r.trace),
            _ => None,
        }
    }

    /// The section shown.
    pub fn section(&self) -> Section {
        self.section
    }

    /// The cursor and first row of section `s`.
    pub fn list(&self, s: Section) -> &ListState {
        &self.lists[s.index()]
    }

    /// The rows of a text section (console, network, output); none for actions.
    pub fn text_rows(&self, s: Section) -> &[TextRow] {
        match (&self.load, s) {
            (Load::Ready(r), Section::Console) => &r.console,
            (Load::Ready(r), Section::Network) => &r.network,
            (Load::Ready(r), Section::Output) => &r.output,
            _ => &[],
        }
    }

    /// How many rows section `s` has.
    pub fn len(&self, s: Section) -> usize {
        match (&self.load, s) {
            (Load::Ready(r), Section::Actions) => r.rows.len(),
            _ => self.text_rows(s).len(),
        }
    }

    /// Action row `i`: its depth and the action.
    pub fn action_row(&self, i: usize) -> Option<(usize, &Action)> {
        let Load::Ready(r) = &self.load else {
            return None;
        };
        let row = r.rows.get(i)?;
        Some((row.depth, action_at(&r.trace.actions, &row.path)?))
    }

    /// The action under the cursor.
    pub fn selected(&self) -> Option<&Action> {
        self.action_row(self.lists[0].cursor).map(|(_, a)| a)
    }

    /// The frames nearest the selected action's start and end.
    pub fn selected_frames(&self) -> (Option<&Frame>, Option<&Frame>) {
        match (self.trace(), self.selected()) {
            (Some(t), Some(a)) => t.action_frames(a),
            _ => (None, None),
        }
    }

    /// A frame's decode, by its entry.
    pub fn frame_state(&self, entry: &str) -> Option<&image::State> {
        self.frames.get(entry)
    }

    /// The key a frame's picture is encoded under for the terminal's protocol.
    pub fn picture_key(&self, entry: &str) -> PathBuf {
        let mut s = self.file.clone().into_os_string();
        s.push("#");
        s.push(entry);
        PathBuf::from(s)
    }

    /// The pictures on screen on a terminal of `size`: key, decoded copy, area.
    pub fn pictures(&self, size: (u16, u16)) -> Vec<(PathBuf, Arc<image::Preview>, Rect)> {
        if self.section != Section::Actions {
            return Vec::new();
        }
        let a = self.areas(size);
        let (start, end) = self.selected_frames();
        [(start, a.start), (end, a.end)]
            .into_iter()
            .filter_map(|(f, r)| {
                let f = f?;
                match self.frames.get(&f.entry) {
                    Some(image::State::Ready(p)) if r.width > 0 => {
                        Some((self.picture_key(&f.entry), p.clone(), picture_body(r)))
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// The trace came back from its reader (for this file).
    pub fn loaded(
        &mut self,
        file: &Path,
        trace: Result<Arc<Trace>, String>,
        root_real: Option<PathBuf>,
    ) {
        if file != self.file {
            return;
        }
        self.load = match trace {
            Err(e) => Load::Failed(e),
            Ok(t) => {
                let mut rows = Vec::new();
                flatten(&t.actions, 0, &mut Vec::new(), &mut rows);
                // the pane opens on the failed action
                let failed = t.failed().and_then(|f| {
                    rows.iter().position(|r| {
                        action_at(&t.actions, &r.path).is_some_and(|a| std::ptr::eq(a, f))
                    })
                });
                self.lists[0].cursor = failed.unwrap_or(0);
                Load::Ready(Box::new(Ready {
                    console: console_rows(&t),
                    network: network_rows(&t),
                    output: output_rows(&t),
                    rows,
                    trace: t,
                    root_real,
                }))
            }
        };
    }

    /// A frame's decode came back.
    pub fn frame_done(&mut self, file: &Path, entry: String, r: Result<image::Preview, String>) {
        if file != self.file {
            return;
        }
        let s = match r {
            Ok(p) => image::State::Ready(Arc::new(p)),
            Err(e) => image::State::Failed(e),
        };
        self.frames.insert(entry, s);
    }

    /// The decodes the selected action's frames need, once per frame.
    pub fn frame_jobs(&mut self, background: [u8; 3]) -> Vec<Effect> {
        let Load::Ready(r) = &self.load else {
            return Vec::new();
        };
        let trace = r.trace.clone();
        let (start, end) = match self.selected() {
            Some(a) => trace.action_frames(a),
            None => (None, None),
        };
        let mut out = Vec::new();
        for f in [start, end].into_iter().flatten() {
            if self.frames.contains_key(&f.entry) {
                continue;
            }
            if self.frames.len() >= FRAME_CACHE {
                // the finished ones only: a pending decode still sends its result
                self.frames
                    .retain(|_, s| matches!(s, image::State::Pending));
            }
            self.frames.insert(f.entry.clone(), image::State::Pending);
            out.push(Effect::Work(FeatureWork::TraceFrame {
                file: self.file.clone(),
                trace: trace.clone(),
                frame: f.clone(),
                background,
            }));
        }
        out
    }

    /// A key on the pane; `size` is the terminal's.
    pub fn command(&mut self, c: Command, size: (u16, u16)) -> TraceOutcome {
        let i = self.section.index();
        match c {
            Command::Close | Command::Quit => return TraceOutcome::Close,
            Command::OpenArtifact => return TraceOutcome::OpenExternal,
            Command::Open if self.section == Section::Actions && self.selected().is_some() => {
                return TraceOutcome::Detail;
            }
            Command::Help => return TraceOutcome::Help,
            Command::NextPane => self.section = SECTIONS[(i + 1) % SECTIONS.len()],
            Command::PrevPane => {
                self.section = SECTIONS[(i + SECTIONS.len() - 1) % SECTIONS.len()];
            }
            Command::Section(n) => {
                if let Some(s) = SECTIONS.get(usize::from(n).wrapping_sub(1)) {
                    self.section = *s;
                }
            }
            Command::NextFailure => {
                let Some(row) = self.failed_row() else {
                    return TraceOutcome::Say("no failed action in this trace");
                };
                self.section = Section::Actions;
                self.lists[0].cursor = row;
            }
            c => {
                let page = self.page(size);
                let Some(d) = rows_for(c, page.cast_signed().max(1)) else {
                    return TraceOutcome::Stay;
                };
                let len = self.len(self.section);
                self.lists[i].step(d, len);
            }
        }
        self.fit(size);
        TraceOutcome::Stay
    }

    /// Keep every section's window on its cursor for a terminal of `size`.
    pub fn fit(&mut self, size: (u16, u16)) {
        let a = self.areas(size);
        for s in SECTIONS {
            let h = match s {
                Section::Actions => a.list.height,
                _ => a.body.height.saturating_sub(1),
            };
            let len = self.len(s);
            self.lists[s.index()].fit(len, usize::from(h));
        }
    }

    /// Rows a page key moves in the section shown.
    fn page(&self, size: (u16, u16)) -> usize {
        let a = self.areas(size);
        let h = match self.section {
            Section::Actions => a.list.height,
            _ => a.body.height.saturating_sub(1),
        };
        usize::from(h.max(2) / 2)
    }

    fn failed_row(&self) -> Option<usize> {
        let t = self.trace()?;
        let f = t.failed()?;
        (0..self.len(Section::Actions))
            .find(|&i| self.action_row(i).is_some_and(|(_, a)| std::ptr::eq(a, f)))
    }

    /// The selected action's place in the workspace (relative to `root`), or why
    /// there is none; `E` opens it.
    pub fn edit_target(&self, root: &Path) -> Result<EditTarget, String> {
        let Load::Ready(r) = &self.load else {
            return Err("the trace is not read yet".into());
        };
        if self.section != Section::Actions {
            return Err("E opens the selected action's source (1: actions)".into());
        }
        let a = self.selected().ok_or("no action selected")?;
        let loc = a
            .location
            .as_ref()
            .ok_or("this action has no source location")?;
        let rel = inside(&loc.file, root, r.root_real.as_deref())
            .ok_or_else(|| format!("{}: outside the workspace, not opened", escape(&loc.file)))?;
        Ok(EditTarget::at(&rel, Some(loc.line)))
    }

    /// The selected action whole, for the data overlay: its title (escaped) and
    /// lines — method and duration, place, every line of its error and stack, its
    /// call log. The lines are raw: the overlay draws them through the SGR
    /// sanitizer (colours kept as styles, every other control escaped).
    pub fn detail(&self, root: &Path) -> Option<(String, Vec<String>)> {
        let a = self.selected()?;
        let mut title = a.title.clone();
        if let Some(s) = a.subtitle.as_deref().filter(|s| !s.is_empty()) {
            title.push(' ');
            title.push_str(s);
        }
        let mut lines = vec![format!(
            "{} · {}",
            a.method,
            a.duration_ms()
                .map_or_else(|| "never ended".to_owned(), duration)
        )];
        if let Some(loc) = &a.location {
            let (file, inside) = self.shown_file(&loc.file, root);
            let how = if inside {
                "E opens it"
            } else {
                "outside the workspace"
            };
            lines.push(format!("at {file}:{}:{} · {how}", loc.line, loc.column));
        }
        if let Some(e) = &a.error {
            lines.push(String::new());
            lines.extend(e.message.lines().map(str::to_owned));
            if let Some(stack) = &e.stack {
                lines.push(String::new());
                lines.push("stack".into());
                lines.extend(stack.lines().map(str::to_owned));
            }
        }
        if !a.log.is_empty() {
            lines.push(String::new());
            lines.push("call log".into());
            lines.extend(a.log.iter().map(|l| format!("  {l}")));
        }
        Some((escape(&title).into_owned(), lines))
    }

    /// A location's file as shown: relative to the workspace when inside it.
    pub fn shown_file(&self, file: &str, root: &Path) -> (String, bool) {
        let real = match &self.load {
            Load::Ready(r) => r.root_real.as_deref(),
            _ => None,
        };
        match inside(file, root, real) {
            Some(rel) => (rel, true),
            None => (file.to_owned(), false),
        }
    }
}

/// `file` relative to the workspace `root` (or the root as the kernel spells it),
/// when it is inside; a relative path is taken as relative to the root. Nothing
/// that climbs out with `..` or names a `file://` elsewhere.
pub fn inside(file: &str, root: &Path, root_real: Option<&Path>) -> Option<String> {
    let file = file.strip_prefix("file://").unwrap_or(file);
    let p = Path::new(file);
    let rel = if p.is_absolute() {
        [Some(root), root_real]
            .into_iter()
            .flatten()
            .filter(|r| r.is_absolute())
            .find_map(|r| p.strip_prefix(r).ok())?
    } else {
        p
    };
    let normal = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let s = rel.to_str()?;
    (normal && !s.is_empty()).then(|| s.to_owned())
}

fn action_at<'a>(actions: &'a [Action], path: &[u32]) -> Option<&'a Action> {
    let (first, rest) = path.split_first()?;
    let mut a = actions.get(*first as usize)?;
    for i in rest {
        a = a.children.get(*i as usize)?;
    }
    Some(a)
}

fn flatten(actions: &[Action], depth: usize, path: &mut Vec<u32>, out: &mut Vec<Row>) {
    for (i, a) in actions.iter().enumerate() {
        path.push(u32::try_from(i).unwrap_or(u32::MAX));
        out.push(Row {
            depth,
            path: path.clone(),
        });
        flatten(&a.children, depth + 1, path, out);
        path.pop();
    }
}

/// A duration as people read it: `850 ms`, `5.0 s`.
pub fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// A byte count: `512 B`, `1.2 kB`, `3.4 MB`.
pub fn bytes(n: u64) -> String {
    if n < 1000 {
        format!("{n} B")
    } else if n < 1_000_000 {
        format!("{:.1} kB", n as f64 / 1e3)
    } else {
        format!("{:.1} MB", n as f64 / 1e6)
    }
}

/// Console messages, then page errors and the test's errors (each line of a
/// message its own row).
fn console_rows(t: &Trace) -> Vec<TextRow> {
    let mut out = Vec::new();
    for c in &t.console {
        let style = match c.kind.as_str() {
            "error" => "failed",
            "warning" => "warning",
            _ => "text",
        };
        let mut text = format!("{:<8} {}", escape(&c.kind), escape(&c.text));
        if let Some(l) = &c.location {
            let _ = write!(text, "  ({})", escape(l));
        }
        out.push(TextRow { style, text });
    }
    for e in &t.errors {
        let who = match e.source {
            ErrorSource::Page => "pageerror",
            ErrorSource::Test => "error",
        };
        let plain = testdeck_core::sanitize::strip_sgr(&e.error.message);
        for (i, line) in plain.lines().enumerate() {
            let head = if i == 0 { who } else { "" };
            out.push(TextRow {
                style: "failed",
                text: format!("{head:<8} {}", escape(line)),
            });
        }
    }
    out
}

/// The network section's header row, in its rows' columns.
pub fn network_header() -> String {
    format!(
        "{:<7} {:>6} {:>9} {:>9}  {}",
        "method", "status", "duration", "size", "URL"
    )
}

/// Network requests: method, status, duration, size, URL.
fn network_rows(t: &Trace) -> Vec<TextRow> {
    t.network
        .iter()
        .map(|r| {
            let status = r.status.map_or_else(|| "—".to_owned(), |s| s.to_string());
            let style = match r.status {
                Some(s) if s >= 400 => "failed",
                None => "warning",
                _ => "text",
            };
            let mut text = format!(
                "{:<7} {:>6} {:>9} {:>9}  {}",
                escape(&r.method),
                status,
                r.duration_ms.map(duration).unwrap_or_default(),
                r.size.map(bytes).unwrap_or_default(),
                escape(&r.url)
            );
            if let Some(f) = &r.failure {
                let _ = write!(text, "  {}", escape(f));
            }
            TextRow { style, text }
        })
        .collect()
}

/// The test's stdout and stderr, a row per line.
fn output_rows(t: &Trace) -> Vec<TextRow> {
    let mut out = Vec::new();
    for o in &t.output {
        let (tag, style) = match o.stream {
            Stream::Stdout => ("out", "text"),
            Stream::Stderr => ("err", "warning"),
        };
        let plain = testdeck_core::sanitize::strip_sgr(&o.text);
        for line in plain.lines() {
            out.push(TextRow {
                style,
                text: format!("{tag} │ {}", escape(line)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_opens_only_inside_the_workspace() {
        let root = Path::new("/w/p");
        assert_eq!(
            inside("/w/p/e2e/a.spec.ts", root, None).as_deref(),
            Some("e2e/a.spec.ts")
        );
        assert_eq!(
            inside("/real/p/e2e/a.spec.ts", root, Some(Path::new("/real/p"))).as_deref(),
            Some("e2e/a.spec.ts")
        );
        assert_eq!(
            inside("e2e/a.spec.ts", root, None).as_deref(),
            Some("e2e/a.spec.ts")
        );
        assert_eq!(inside("/etc/passwd", root, None), None);
        assert_eq!(inside("/w/p/../q/x.ts", root, None), None);
        assert_eq!(inside("../x.ts", root, None), None);
        assert_eq!(inside("/w/p", root, None), None);
    }

    #[test]
    fn a_bad_trace_is_its_problem_and_keys_do_not_panic() {
        let mut v = TraceView::new("/r/t.zip".into(), "t.zip".into());
        assert!(v.reading());
        v.loaded(
            Path::new("/r/t.zip"),
            Err("t.zip error trace-unreadable not a zip archive".into()),
            None,
        );
        assert_eq!(
            v.failure(),
            Some("t.zip error trace-unreadable not a zip archive")
        );
        for c in [
            Command::MoveDown,
            Command::PageDown,
            Command::GoBottom,
            Command::NextPane,
            Command::Section(3),
            Command::NextFailure,
        ] {
            assert_ne!(v.command(c, (80, 24)), TraceOutcome::Close);
        }
        assert!(v.frame_jobs([0, 0, 0]).is_empty());
        assert!(v.edit_target(Path::new("/r")).is_err());
        assert_eq!(v.command(Command::Close, (80, 24)), TraceOutcome::Close);
    }
}
