//! `testdeck new` and `testdeck promote` (seed 000 §3.5, §3.6): a formal case starts as
//! its test-plan entry (What / Why / How / Oracle / Not), and only then gets its test
//! file — a new one from the framework's template, or a temp case moved into the tree.
//! [`NewCase::prepare`] / [`NewCase::promote`] check everything and write nothing;
//! [`NewCase::write_plan`] then [`NewCase::write_test`] write, in that order, each file
//! through the guarded writer ([`super::read::write_beneath`]: no link on the way) and
//! never over an existing test file; both are checked before the first is written.

use super::Workspace;
use super::read::{
    Kind, WriteMode, check_write, read, rename_beneath, write_beneath, write_beneath_with,
};
use super::tree::{CasePatterns, NOT_CASES, is_kebab};
use serde::Serialize;
use std::path::Path;

/// Why a case was not created; each says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The path does not start with `tests/`.
    #[error(
        "{0}: a new case goes under tests/, as tests/<domain>/<layer>/<suite>/<groups…>/<caseId>"
    )]
    NotUnderTests(String),
    /// `tests/temp/` is for temporary cases, which are not planned.
    #[error(
        "{0}: tests/temp/ holds temporary cases, which have no plan entry: write one there by hand, and `testdeck promote` makes it formal"
    )]
    Temp(String),
    /// `tests/harness`, `fixtures`, `logs`, `report` hold no cases.
    #[error("{0}: tests/{1}/ holds no cases")]
    NotCases(String, String),
    /// Fewer than domain, layer and suite before the caseId.
    #[error(
        "{0}: a formal case is tests/<domain>/<layer>/<suite>/<groups…>/<caseId> (domain, layer and suite at least)"
    )]
    Shape(String),
    /// `new` on a folder: the caseId is missing.
    #[error("{0} is a folder: name the case in it, {0}/<caseId>")]
    IsFolder(String),
    /// A folder name that is not kebab-case, or `..`.
    #[error("{0}: folder {1:?} is not kebab-case (lowercase letters and digits joined by -)")]
    Folder(String, String),
    /// A caseId with characters the plan cannot name as one word.
    #[error(
        "{0:?} is not a caseId: letters, digits, - and _ only, starting with a letter or digit"
    )]
    CaseId(String),
    /// The caseId is taken (caseIds are unique, seed 000).
    #[error("caseId {0} exists already: {1}{2}")]
    Exists(String, String, String),
    /// A file is at the target path.
    #[error("{0} exists: it is never overwritten")]
    FileExists(String),
    /// The file name would not be a case under `[tests] patterns`.
    #[error("{0}: testdeck.toml's [tests] patterns do not make it a case")]
    NotACase(String),
    /// `promote` of something that is not a temp case.
    #[error("{0}: not a case under tests/temp/ (testdeck list shows the temp cases)")]
    NotTemp(String),
    /// `adopt`: the file is no test outside the tree or temp case.
    #[error("{0}: {1}")]
    NotAdoptable(String, String),
    /// The moved file does not parse (its imports could not be rewritten).
    #[error("{0}: its imports cannot be rewritten: nothing moved")]
    Parse(String),
    /// A run of the case is still being written.
    #[error("{0}: a run still in progress; adopt it once the run has ended")]
    RunInProgress(String),
    /// The project's own configs would not find the file at its new place (a
    /// tsconfig `include` its path alias needs, vitest's `test.include`).
    #[error(
        "{file} would not be found at its new place: {needs}; then adopt again (nothing was moved)"
    )]
    NotIncluded {
        /// The destination.
        file: String,
        /// What to change where, `; `-separated.
        needs: String,
    },
    /// Reading or writing failed.
    #[error("{0}: {1}")]
    Io(String, String),
    /// A part of the path is a symbolic link (or not a folder, or not a regular
    /// file): the guarded writer's located message; nothing was written.
    #[error("{0}")]
    Link(String),
}

impl Refusal {
    /// A short name of the refusal for `--json`.
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::NotUnderTests(_) => "not-under-tests",
            Refusal::Temp(_) => "temp-target",
            Refusal::NotCases(..) => "not-a-case-folder",
            Refusal::Shape(_) => "bad-shape",
            Refusal::IsFolder(_) => "no-case-id",
            Refusal::Folder(..) => "folder-not-kebab-case",
            Refusal::CaseId(_) => "bad-case-id",
            Refusal::Exists(..) => "case-id-exists",
            Refusal::FileExists(_) => "file-exists",
            Refusal::NotACase(_) => "not-a-case-file",
            Refusal::NotTemp(_) => "not-a-temp-case",
            Refusal::NotAdoptable(..) => "not-adoptable",
            Refusal::Parse(_) => "js-parse",
            Refusal::RunInProgress(_) => "run-in-progress",
            Refusal::NotIncluded { .. } => "not-included",
            Refusal::Io(..) => "io",
            Refusal::Link(_) => "symlink-not-followed",
        }
    }
}

/// A case to create: where its plan entry and its test file go. Paths are relative
/// to the workspace root, with `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewCase {
    /// The caseId.
    pub case_id: String,
    /// Its scope: `<domain>/<layer>/<suite>/<groups…>`.
    pub scope: String,
    /// The test file to write (or to move the temp case to).
    pub test_file: String,
    /// The plan file that holds (or will hold) its entry.
    pub plan_file: String,
    /// The entry's 1-based line (known once written, or when it was there).
    pub plan_line: Option<u32>,
    /// The plan had an entry for the caseId already: nothing is added to it.
    pub plan_existed: bool,
    /// `promote`: the temp case's file, moved to `test_file`.
    pub promoted_from: Option<String>,
    /// `vitest` or `playwright`: the runner the file is for.
    pub framework: &'static str,
    /// Facts the entry's What lists under its placeholder (`adopt` / `promote`:
    /// the moved file's describe / test titles).
    #[serde(skip)]
    pub facts: Vec<String>,
    /// `adopt` / `promote`: the moved file's bytes with its relative imports
    /// rewritten for its new folder (`None`: moved as it is).
    #[serde(skip)]
    pub content: Option<Vec<u8>>,
}

/// A target path split: the folders under `tests/` and the caseId.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) folders: Vec<String>,
    pub(crate) case_id: String,
}

/// `given` relative to `root` with `/`, `./` and a trailing `/` dropped.
pub(crate) fn relative(root: &Path, given: &str) -> String {
    let p = Path::new(given);
    let rel = if p.is_absolute() {
        p.strip_prefix(root)
            .map_or_else(|_| given.to_owned(), |r| r.to_string_lossy().into_owned())
    } else {
        given.to_owned()
    };
    let rel = rel.replace('\\', "/");
    let mut s = rel
        .trim_start_matches("./")
        .trim_end_matches('/')
        .to_owned();
    while s.contains("//") {
        s = s.replace("//", "/");
    }
    s
}

/// The folders under `tests/` of `rel` (checked: no `.`/`..`, under `tests/`).
fn tests_parts(rel: &str, shown: &str) -> Result<Vec<String>, Refusal> {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.first() != Some(&"tests") || parts.len() < 2 {
        return Err(Refusal::NotUnderTests(shown.to_owned()));
    }
    let rest: Vec<String> = parts[1..].iter().map(|s| (*s).to_owned()).collect();
    if let Some(bad) = rest
        .iter()
        .find(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(Refusal::Folder(shown.to_owned(), bad.clone()));
    }
    Ok(rest)
}

fn valid_case_id(id: &str) -> bool {
    id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Check a formal target: `tests/<domain>/<layer>/<suite>/<groups…>/<caseId>`.
pub(crate) fn formal_target(
    root: &Path,
    given: &str,
    patterns: &CasePatterns,
    keep_id: Option<&str>,
) -> Result<Target, Refusal> {
    let rel = relative(root, given);
    let mut parts = tests_parts(&rel, given)?;
    let first = parts.first().cloned().unwrap_or_default();
    if first == "temp" {
        return Err(Refusal::Temp(given.to_owned()));
    }
    if NOT_CASES.contains(&first.as_str()) {
        return Err(Refusal::NotCases(given.to_owned(), first));
    }
    // `promote TEMP tests/d/l/s/` (or an existing folder): the temp case's caseId
    let into_folder = given.ends_with('/') || root.join(&rel).is_dir();
    let case_id = match keep_id {
        Some(id) if into_folder => id.to_owned(),
        None if into_folder => return Err(Refusal::IsFolder(rel)),
        _ => {
            let last = parts.pop().unwrap_or_default();
            patterns.case_id_of(&last).unwrap_or(&last).to_owned()
        }
    };
    if parts.len() < 3 {
        return Err(Refusal::Shape(given.to_owned()));
    }
    if let Some(bad) = parts.iter().find(|f| !is_kebab(f)) {
        return Err(Refusal::Folder(given.to_owned(), bad.clone()));
    }
    if !valid_case_id(&case_id) {
        return Err(Refusal::CaseId(case_id));
    }
    Ok(Target {
        folders: parts,
        case_id,
    })
}

/// The plan file of `domain`: where the plan defines most of the domain's cases
/// now, else `doc/test-plan/<domain>.md`.
fn plan_file_of(ws: &Workspace, domain: &str) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for c in ws
        .tests
        .cases
        .iter()
        .filter(|c| !c.temp && c.levels.domain == domain)
    {
        if let Some(e) = ws.plan.defined(&c.case_id) {
            match counts.iter_mut().find(|(f, _)| *f == e.file) {
                Some((_, n)) => *n += 1,
                None => counts.push((e.file, 1)),
            }
        }
    }
    // the most entries; on a tie the first file in the plan's order
    counts
        .into_iter()
        .rev()
        .max_by_key(|(_, n)| *n)
        .map_or_else(|| format!("doc/test-plan/{domain}.md"), |(f, _)| f)
}

impl NewCase {
    /// Check `testdeck new <target>` against the workspace and say what it will
    /// write; nothing is written.
    pub fn prepare(ws: &Workspace, target: &str) -> Result<NewCase, Refusal> {
        let patterns = patterns(ws);
        let t = formal_target(&ws.root, target, &patterns, None)?;
        Self::planned(ws, &t, None, &patterns)
    }

    /// Check `testdeck promote <temp> <target>`: the temp case's file and the formal
    /// place it moves to (a folder keeps its caseId, a path ending in a caseId renames it).
    pub fn promote(ws: &Workspace, temp: &str, target: &str) -> Result<NewCase, Refusal> {
        let patterns = patterns(ws);
        let rel = relative(&ws.root, temp);
        let case = ws
            .tests
            .cases
            .iter()
            .find(|c| c.temp && c.path == rel)
            .ok_or_else(|| Refusal::NotTemp(temp.to_owned()))?;
        let t = formal_target(&ws.root, target, &patterns, Some(&case.case_id))?;
        Self::planned(ws, &t, Some(Moved::of(case)), &patterns)
    }

    pub(crate) fn planned(
        ws: &Workspace,
        t: &Target,
        temp: Option<Moved<'_>>,
        patterns: &CasePatterns,
    ) -> Result<NewCase, Refusal> {
        let id = &t.case_id;
        if let Some(c) = ws
            .tests
            .cases
            .iter()
            .find(|c| c.case_id == *id && Some(c.path.as_str()) != temp.map(|t| t.path))
        {
            let hint = if c.temp {
                format!(" (a temp case: testdeck promote {} <target>)", c.path)
            } else {
                String::new()
            };
            return Err(Refusal::Exists(id.clone(), c.path.clone(), hint));
        }
        let e2e = t.folders.get(1).is_some_and(|l| l == "e2e");
        let ending = match temp {
            // the temp file keeps its own ending (`.test.ts`, `.spec.mjs` …)
            Some(c) => Path::new(c.path)
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(c.case_id))
                .unwrap_or(".test.ts")
                .to_owned(),
            None if e2e => ".spec.ts".to_owned(),
            None => ".test.ts".to_owned(),
        };
        let name = format!("{id}{ending}");
        if patterns.case_id_of(&name) != Some(id.as_str()) {
            return Err(Refusal::NotACase(name));
        }
        let scope = t.folders.join("/");
        let test_file = format!("tests/{scope}/{name}");
        let (plan_file, plan_line, plan_existed) = match ws.plan.defined(id) {
            Some(e) => (e.file, Some(e.line), true),
            None => (plan_file_of(ws, &t.folders[0]), None, false),
        };
        let case = NewCase {
            case_id: id.clone(),
            scope,
            test_file,
            plan_file,
            plan_line,
            plan_existed,
            promoted_from: temp.map(|c| c.path.to_owned()),
            framework: if ending.starts_with(".spec") && e2e {
                "playwright"
            } else {
                "vitest"
            },
            facts: Vec::new(),
            content: None,
        };
        case.check(&ws.root)?;
        Ok(case)
    }

    /// Every file [`NewCase::create`] would write (and, promoted, the temp case
    /// it moves) checked by the guarded writer before the first is written: a
    /// link at any part, or a test file there already, refuses the whole.
    pub fn check(&self, root: &Path) -> Result<(), Refusal> {
        let link = |e: std::io::Error| Refusal::Link(e.to_string());
        if !self.plan_existed {
            check_write(root, Path::new(&self.plan_file)).map_err(link)?;
        }
        check_write(root, Path::new(&self.test_file)).map_err(link)?;
        if let Some(from) = &self.promoted_from {
            check_write(root, Path::new(from)).map_err(link)?;
        }
        if std::fs::symlink_metadata(root.join(&self.test_file)).is_ok() {
            return Err(Refusal::FileExists(self.test_file.clone()));
        }
        Ok(())
    }

    /// The entry [`NewCase::write_plan`] adds (for `--dry-run`).
    pub fn entry(&self) -> String {
        skeleton(&self.case_id, &self.facts)
    }

    fn levels(&self) -> (&str, &str, &str) {
        let mut it = self.scope.split('/');
        let domain = it.next().unwrap_or_default();
        let layer = it.next().unwrap_or_default();
        let suite = it.next().unwrap_or_default();
        (domain, layer, suite)
    }

    /// Step one (seed 000 §3.5): the plan entry's skeleton into the domain's plan
    /// file — in its `## <layer> / <suite>` section when it has one, else a new
    /// section at its end (a new file when there is none). Nothing when the plan
    /// defines the caseId already. Sets [`NewCase::plan_line`].
    pub fn write_plan(&mut self, root: &Path) -> Result<(), Refusal> {
        if self.plan_existed {
            return Ok(());
        }
        let path = root.join(&self.plan_file);
        let io = |e: &dyn std::fmt::Display| Refusal::Io(self.plan_file.clone(), e.to_string());
        let old = match read(&path, Some(root), Kind::Markdown) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if e.is_missing() => String::new(),
            Err(e) => return Err(io(&e)),
        };
        let (text, line) = with_entry(&old, self.levels(), &self.case_id, &self.facts);
        write_beneath(root, Path::new(&self.plan_file), text.as_bytes())
            .map_err(|e| guarded(&e, &io))?;
        self.plan_line = Some(line);
        Ok(())
    }

    /// Step two: the test file — the framework's template with the caseId, or the
    /// temp case moved here. Never over a file that is there.
    pub fn write_test(&self, root: &Path) -> Result<(), Refusal> {
        let rel = Path::new(&self.test_file);
        let io = |e: &dyn std::fmt::Display| Refusal::Io(self.test_file.clone(), e.to_string());
        let taken = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Refusal::FileExists(self.test_file.clone()),
            _ => guarded(&e, &io),
        };
        if let (Some(from), Some(content)) = (&self.promoted_from, &self.content) {
            // the rewritten bytes under the new name through the guarded writer
            // (never over a file, no link on the way), then the old name gone
            write_beneath_with(root, rel, content, WriteMode::NEW).map_err(taken)?;
            return std::fs::remove_file(root.join(from)).map_err(|e| io(&e));
        }
        if let Some(from) = &self.promoted_from {
            return rename_beneath(root, Path::new(from), rel).map_err(taken);
        }
        let template = if self.framework == "playwright" {
            super::init::E2E_CASE
        } else {
            super::init::BACKEND_CASE
        };
        let text = template
            .replace("doc/test-plan/DOMAIN.md", &self.plan_file)
            .replace("DOMAIN", self.levels().0)
            .replace("CASE_ID", &self.case_id);
        write_beneath_with(root, rel, text.as_bytes(), WriteMode::NEW).map_err(taken)
    }

    /// Both steps in order, `between` run after the plan entry is written and before
    /// the test file (the CLI opens the entry in the person's editor there).
    pub fn create(&mut self, root: &Path, between: impl FnOnce(&NewCase)) -> Result<(), Refusal> {
        self.check(root)?;
        self.write_plan(root)?;
        between(self);
        self.write_test(root)
    }
}

/// The file a new case is made of when it is moved, not written from a template:
/// its path (relative to the root) and its caseId.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Moved<'a> {
    pub(crate) path: &'a str,
    pub(crate) case_id: &'a str,
}

impl<'a> Moved<'a> {
    fn of(c: &'a super::tree::TestCase) -> Self {
        Moved {
            path: &c.path,
            case_id: &c.case_id,
        }
    }
}

pub(crate) fn patterns(ws: &Workspace) -> CasePatterns {
    CasePatterns::new(&ws.config.tests.patterns, &mut Vec::new())
}

/// A refusal of the guarded writer as [`Refusal::Link`] (its message is located);
/// another error of the disk through `io`.
fn guarded(e: &std::io::Error, io: &dyn Fn(&dyn std::fmt::Display) -> Refusal) -> Refusal {
    if super::read::is_refusal(e) {
        Refusal::Link(e.to_string())
    } else {
        io(e)
    }
}

/// The skeleton of one entry (the five lines of `doc/test-plan/README.md`), the
/// What's facts listed under it.
fn skeleton(case_id: &str, facts: &[String]) -> String {
    let mut what = String::from("- What: (the behaviour the case checks, in one sentence)\n");
    if !facts.is_empty() {
        what.push_str("  Its tests, as the file names them:\n");
        for f in facts {
            what.push_str("  - ");
            what.push_str(&f.replace(['\n', '\r'], " "));
            what.push('\n');
        }
    }
    format!(
        "### {case_id}\n\
         {what}\
         - Why: (what breaks for a person when it does not hold)\n\
         - How: (the steps: the input, the calls, the page actions)\n\
         - Oracle: (the named assertions and their expected values)\n\
         - Not: (what the case leaves to other cases)\n"
    )
}

/// `old` with the entry of `case_id` added, and the entry's 1-based line.
fn with_entry(
    old: &str,
    (domain, layer, suite): (&str, &str, &str),
    case_id: &str,
    facts: &[String],
) -> (String, u32) {
    let section = format!("## {layer} / {suite}");
    let mut lines: Vec<String> = old.lines().map(str::to_owned).collect();
    let entry: Vec<String> = skeleton(case_id, facts)
        .lines()
        .map(str::to_owned)
        .collect();
    let level = |l: &str| {
        let t = l.trim_start();
        let n = t.bytes().take_while(|&b| b == b'#').count();
        (n > 0 && t[n..].starts_with(' ')).then_some(n)
    };
    let at = lines.iter().position(|l| l.trim() == section);
    let insert_at = if let Some(h) = at {
        let end = (h + 1..lines.len())
            .find(|&k| level(&lines[k]).is_some_and(|n| n <= 2))
            .unwrap_or(lines.len());
        // after the section's last line of text, one blank line before the entry
        let last = (h..end)
            .rev()
            .find(|&k| !lines[k].trim().is_empty())
            .unwrap_or(h);
        let mut out: Vec<String> = lines[..=last].to_vec();
        out.push(String::new());
        let at = out.len();
        out.extend(entry);
        if end < lines.len() {
            out.push(String::new());
            out.extend(lines[end..].iter().cloned());
        }
        lines = out;
        at
    } else {
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        if lines.is_empty() {
            let mut title = domain.to_owned();
            if let Some(c) = title.get_mut(0..1) {
                c.make_ascii_uppercase();
            }
            lines.push(format!("# {title} test plan"));
        }
        lines.push(String::new());
        lines.push(section);
        lines.push(String::new());
        let at = lines.len();
        lines.extend(entry);
        at
    };
    let mut text = lines.join("\n");
    text.push('\n');
    (text, u32::try_from(insert_at + 1).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_goes_into_its_section_or_a_new_one() {
        let old = "# Calc test plan\n\n## backend / math\n\n### add\n- What: x\n\n## e2e / page\n\n### p\n- What: y\n";
        let (t, line) = with_entry(old, ("calc", "backend", "math"), "sub", &[]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[line as usize - 1], "### sub");
        assert!(t.contains("- What: x\n\n### sub\n- What: ("), "{t}");
        assert!(
            t.contains("- Not: (what the case leaves to other cases)\n\n## e2e / page"),
            "{t}"
        );
        let (t, line) = with_entry(old, ("calc", "e2e", "page"), "q", &[]);
        assert!(t.ends_with("- What: y\n\n### q\n- What: (the behaviour the case checks, in one sentence)\n- Why: (what breaks for a person when it does not hold)\n- How: (the steps: the input, the calls, the page actions)\n- Oracle: (the named assertions and their expected values)\n- Not: (what the case leaves to other cases)\n"), "{t}");
        assert_eq!(t.lines().nth(line as usize - 1), Some("### q"));
        let (t, line) = with_entry(old, ("calc", "backend", "io"), "r", &[]);
        assert!(t.contains("- What: y\n\n## backend / io\n\n### r\n"), "{t}");
        assert_eq!(t.lines().nth(line as usize - 1), Some("### r"));
        let (t, line) = with_entry("", ("calc", "backend", "io"), "r", &[]);
        assert!(
            t.starts_with("# Calc test plan\n\n## backend / io\n\n### r\n"),
            "{t}"
        );
        assert_eq!(line, 5);
    }

    #[test]
    fn targets_are_checked_before_anything_is_written() {
        let p = CasePatterns::default();
        let root = Path::new("/nowhere");
        let t = formal_target(
            root,
            "./tests/calc/backend/math/basic/sub-numbers",
            &p,
            None,
        )
        .expect("ok");
        assert_eq!(t.folders, ["calc", "backend", "math", "basic"]);
        assert_eq!(t.case_id, "sub-numbers");
        let t =
            formal_target(root, "tests/calc/backend/math/x.test.ts", &p, None).expect("ending cut");
        assert_eq!(t.case_id, "x");
        let rule = |g: &str| formal_target(root, g, &p, None).err().map(|e| e.rule());
        assert_eq!(rule("src/calc/backend/math/x"), Some("not-under-tests"));
        assert_eq!(rule("tests/temp/x"), Some("temp-target"));
        assert_eq!(rule("tests/logs/a/b/c/x"), Some("not-a-case-folder"));
        assert_eq!(rule("tests/calc/backend/x"), Some("bad-shape"));
        assert_eq!(
            rule("tests/calc/Backend/math/x"),
            Some("folder-not-kebab-case")
        );
        assert_eq!(
            rule("tests/calc/../math/y/x"),
            Some("folder-not-kebab-case")
        );
        assert_eq!(rule("tests/calc/backend/math/x y"), Some("bad-case-id"));
    }
}
