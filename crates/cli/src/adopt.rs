//! `testdeck adopt`: test files outside the tree (or temp cases) made formal by the
//! core's `Adoption` — the plan entry first (opened in the person's editor), then
//! the file moved with its relative imports rewritten, then its runs. `--dry-run`
//! prints all of it and writes nothing; `--all --domain D` proposes one suite per
//! folder in a mapping file the person edits before it runs.

use super::{EXIT_OK, EXIT_USAGE, print_json, usage};
use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;
use testdeck_core::sanitize::escape;
use testdeck_core::workspace::Workspace;
use testdeck_core::workspace::adopt::{Adoption, MAPPING_FILE, mapping_proposal, parse_mapping};
use testdeck_core::workspace::new_case::{NewCase, Refusal};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Test files outside `tests/<domain>/<layer>/…` (or temp cases), relative to
    /// the workspace root.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<String>,
    /// The formal folder they move to: `tests/<domain>/<layer>/<suite>/<groups…>/`
    /// (each keeps its caseId).
    #[arg(long, value_name = "DIR", required_unless_present_any = ["all", "mapping"])]
    pub(crate) to: Option<String>,
    /// Print the plan entry, the move, each rewritten import and the runs that
    /// follow; write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Every test file outside the tree (or the FILEs given): a mapping of one
    /// folder to one suite, written to a file to edit, then carried out.
    #[arg(long, requires = "domain", conflicts_with_all = ["to", "mapping"])]
    pub(crate) all: bool,
    /// The domain `--all` proposes its suites in.
    #[arg(long, value_name = "DOMAIN")]
    pub(crate) domain: Option<String>,
    /// Carry out a mapping file (`FOLDER -> tests/<domain>/<layer>/<suite>/` a line).
    #[arg(long, value_name = "FILE", conflicts_with = "to")]
    pub(crate) mapping: Option<String>,
    /// One JSON document.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, ctx: &super::Ctx) -> ExitCode {
    let root = match testdeck_core::workspace::resolve_root(ctx.root.as_deref()) {
        Ok(r) => r,
        Err(e) => return usage(&e),
    };
    let ws = match Workspace::load_tree(&root) {
        Ok(ws) => ws,
        Err(e) => return usage(&e.to_string()),
    };
    let plan: Vec<(String, String)> = if args.all {
        match propose(&ws, args) {
            Ok(Some(p)) => p,
            Ok(None) => return ExitCode::from(EXIT_OK),
            Err(code) => return code,
        }
    } else if let Some(file) = &args.mapping {
        match read_mapping(&ws, file, &args.files) {
            Ok(p) => p,
            Err(e) => return usage(&e),
        }
    } else {
        let Some(to) = &args.to else {
            return usage("adopt needs --to tests/<domain>/<layer>/<suite>/ (or --all --domain D)");
        };
        if args.files.is_empty() {
            return usage("adopt needs the test files to adopt: testdeck adopt FILE… --to DIR");
        }
        args.files.iter().map(|f| (f.clone(), to.clone())).collect()
    };
    let done = carry_out(&ws, &plan, args.dry_run, args.json, Mode::Adopt);
    if done == ExitCode::from(EXIT_OK) && args.mapping.is_some() && !args.dry_run {
        // a mapping carried out whole is done with
        let _ = std::fs::remove_file(root.join(MAPPING_FILE));
    }
    done
}

/// Which command carries adoptions out (their words differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Adopt,
    Promote,
}

/// Check every (file, target) first — any refusal writes nothing at all — then
/// carry each out in seed 000 §3.5's order.
pub(crate) fn carry_out(
    ws: &Workspace,
    plan: &[(String, String)],
    dry_run: bool,
    json: bool,
    mode: Mode,
) -> ExitCode {
    let mut all: Vec<Adoption> = Vec::new();
    for (file, target) in plan {
        let checked = match mode {
            Mode::Adopt => Adoption::adopt(ws, file, target),
            Mode::Promote => Adoption::promote(ws, file, target),
        };
        match checked {
            Ok(a) => all.push(a),
            Err(r) => return refused(&r, json),
        }
    }
    // two files to one name, or one caseId twice
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for a in &all {
        for key in [a.case.test_file.as_str(), a.case.case_id.as_str()] {
            if let Some(other) = seen.insert(key, &a.from) {
                let r = Refusal::Exists(
                    a.case.case_id.clone(),
                    other.to_owned(),
                    format!(" (and {} would take it too)", a.from),
                );
                return refused(&r, json);
            }
        }
    }
    if dry_run {
        if json {
            let items: Vec<serde_json::Value> = all.iter().map(|a| as_json(a, true)).collect();
            print_json(&serde_json::json!({ "dryRun": true, "adopted": items }));
        } else {
            for a in &all {
                print_plan(a);
            }
            crate::outln!("dry run: nothing written");
        }
        return ExitCode::from(EXIT_OK);
    }
    let root = ws.root.clone();
    for a in &mut all {
        let mut edited = None;
        if let Err(r) = a.create(&root, |c| edited = open_editor(&root, c, json)) {
            return refused(&r, json);
        }
        if !json {
            print_done(a, edited.as_deref());
        }
    }
    if json {
        let items: Vec<serde_json::Value> = all.iter().map(|a| as_json(a, false)).collect();
        match (mode, items.as_slice()) {
            // promote's one case, as `new --json` prints it
            (Mode::Promote, [one]) => print_json(one),
            _ => print_json(&serde_json::json!({ "dryRun": false, "adopted": items })),
        }
    }
    ExitCode::from(EXIT_OK)
}

/// One adoption for `--json`: the case's fields (as `new --json`), then what
/// moved and what was rewritten.
fn as_json(a: &Adoption, dry_run: bool) -> serde_json::Value {
    let mut v = serde_json::to_value(&a.case).unwrap_or_default();
    v["planEntry"] = match (a.case.plan_existed, dry_run) {
        (true, _) => "existing".into(),
        (false, true) => a.case.entry().into(),
        (false, false) => "written".into(),
    };
    v["from"] = a.from.clone().into();
    v["oldScope"] = a.old_scope.clone().into();
    v["imports"] = serde_json::to_value(&a.imports).unwrap_or_default();
    v["unresolved"] = serde_json::to_value(&a.unresolved).unwrap_or_default();
    v["runs"] = serde_json::to_value(&a.runs).unwrap_or_default();
    v
}

fn print_plan(a: &Adoption) {
    let c = &a.case;
    crate::outln!("adopt {} as {}", escape(&a.from), escape(&c.case_id));
    if c.plan_existed {
        crate::outln!(
            "  plan entry: there already, {}:{}",
            escape(&c.plan_file),
            c.plan_line.unwrap_or(0)
        );
    } else {
        crate::outln!("  plan entry, first, into {}:", escape(&c.plan_file));
        for l in c.entry().lines() {
            crate::outln!("    {}", escape(l));
        }
    }
    crate::outln!(
        "  then move {} -> {}",
        escape(&a.from),
        escape(&c.test_file)
    );
    print_imports(a);
    print_runs(a);
}

fn print_imports(a: &Adoption) {
    if a.imports.is_empty() {
        crate::outln!("  imports: none relative to rewrite");
    }
    for i in &a.imports {
        crate::outln!(
            "  import rewritten, line {}: {} {} -> {}",
            i.line,
            i.kind,
            escape(&i.from),
            escape(&i.to)
        );
    }
    for u in &a.unresolved {
        crate::outln!(
            "  not rewritten, line {}:{}: {} of a value that is no literal (check it)",
            u.line,
            u.column,
            u.kind
        );
    }
}

fn print_runs(a: &Adoption) {
    match a.runs.len() {
        0 => crate::outln!("  runs: none under {}", escape(&a.old_scope)),
        n => crate::outln!(
            "  then its {n} earlier run{} from {} to {}",
            if n == 1 { "" } else { "s" },
            escape(&a.old_scope),
            escape(&a.case.scope)
        ),
    }
}

fn print_done(a: &Adoption, edited: Option<&str>) {
    let c = &a.case;
    let at = c.plan_line.map(|l| format!(":{l}")).unwrap_or_default();
    if c.plan_existed {
        crate::outln!(
            "plan entry of {} is there: {}{at}",
            escape(&c.case_id),
            escape(&c.plan_file)
        );
    } else {
        crate::outln!(
            "wrote the plan entry of {}: {}{at} (fill in What / Why / How / Oracle / Not)",
            escape(&c.case_id),
            escape(&c.plan_file)
        );
    }
    if let Some(e) = edited {
        crate::outln!("{}", escape(e));
    }
    crate::outln!("moved {} to {}", escape(&a.from), escape(&c.test_file));
    for i in &a.imports {
        crate::outln!(
            "  line {}: {} -> {}",
            i.line,
            escape(&i.from),
            escape(&i.to)
        );
    }
    for u in &a.unresolved {
        crate::outln!(
            "  line {}:{}: {} of a value that is no literal: not rewritten, check it",
            u.line,
            u.column,
            u.kind
        );
    }
    if !a.runs.is_empty() {
        crate::outln!(
            "moved {} earlier run{} to {}",
            a.runs.len(),
            if a.runs.len() == 1 { "" } else { "s" },
            escape(&c.scope)
        );
    }
    crate::outln!("next: testdeck run {}", escape(&c.case_id));
}

/// `--all`: the mapping proposed into [`MAPPING_FILE`], opened in the person's
/// editor and then read back (`None`: written for the person to edit and carry
/// out with `--mapping`).
fn propose(ws: &Workspace, args: &Args) -> Result<Option<Vec<(String, String)>>, ExitCode> {
    let domain = args.domain.as_deref().unwrap_or_default();
    let text = match mapping_proposal(ws, domain, &args.files) {
        Ok(t) => t,
        Err(r) => return Err(refused(&r, args.json)),
    };
    if args.dry_run {
        for line in text.trim_end().lines() {
            crate::outln!("{}", escape(line));
        }
        crate::outln!("dry run: nothing written");
        return Ok(None);
    }
    if let Err(e) = testdeck_core::workspace::read::write_beneath(
        &ws.root,
        std::path::Path::new(MAPPING_FILE),
        text.as_bytes(),
    ) {
        return Err(usage(&format!("{MAPPING_FILE}: {e}")));
    }
    if let Some(said) = open_in_editor(&ws.root, MAPPING_FILE, Some(1), args.json) {
        crate::outln!("{}", escape(&said));
        return read_mapping(ws, MAPPING_FILE, &[])
            .map(Some)
            .map_err(|e| usage(&e));
    }
    if args.json {
        print_json(&serde_json::json!({ "mapping": MAPPING_FILE, "proposed": text }));
    } else {
        for line in text.trim_end().lines() {
            crate::outln!("{}", escape(line));
        }
        crate::outln!(
            "wrote {MAPPING_FILE}: edit it, then testdeck adopt --mapping {MAPPING_FILE}"
        );
    }
    Ok(None)
}

fn read_mapping(
    ws: &Workspace,
    file: &str,
    only: &[String],
) -> Result<Vec<(String, String)>, String> {
    let path = Path::new(file);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        ws.root.join(path)
    };
    let bytes = testdeck_core::workspace::read::read(
        &path,
        None,
        testdeck_core::workspace::read::Kind::Config,
    )
    .map_err(|e| format!("{file}: {e}"))?;
    let plan = parse_mapping(ws, &String::from_utf8_lossy(&bytes), file)?;
    Ok(plan
        .into_iter()
        .filter(|(f, _)| only.is_empty() || only.contains(f))
        .collect())
}

pub(crate) fn refused(r: &Refusal, json: bool) -> ExitCode {
    if json {
        print_json(&serde_json::json!({
            "error": { "rule": r.rule(), "message": r.to_string() }
        }));
        ExitCode::from(EXIT_USAGE)
    } else {
        usage(&r.to_string())
    }
}

/// Open the plan entry in `$VISUAL` / `$EDITOR` when one is set and a person is at a
/// terminal (never under `--json`, a pipe or a test); what happened, to print.
pub(crate) fn open_editor(root: &Path, c: &NewCase, json: bool) -> Option<String> {
    open_in_editor(root, &c.plan_file, c.plan_line, json)
}

/// Open `file` (relative to `root`) at `line` in `$VISUAL` / `$EDITOR`, as
/// [`open_editor`] does; `None` when no editor is set or no person is at a terminal.
pub(crate) fn open_in_editor(
    root: &Path,
    file: &str,
    line: Option<u32>,
    json: bool,
) -> Option<String> {
    let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
    let (visual, editor) = (var("VISUAL"), var("EDITOR"));
    if json
        || (visual.is_none() && editor.is_none())
        || !std::io::stdin().is_terminal()
        || !std::io::stdout().is_terminal()
    {
        return None;
    }
    let cmd = testdeck_core::workspace::editor::command(visual.as_deref(), editor.as_deref());
    // only a regular file whose real path lies inside, checked at the hand-off
    let argv = match testdeck_core::workspace::editor::hand_over(root, &cmd, file, line) {
        Ok(a) => a,
        Err(why) => return Some(why),
    };
    let (prog, rest) = argv.split_first()?;
    let status = std::process::Command::new(prog)
        .args(rest)
        .current_dir(root)
        .status();
    Some(match status {
        Ok(s) if s.success() => format!("edited {}", escape(file)),
        Ok(s) => format!("{} ended with {s}", escape(prog)),
        Err(e) => format!("cannot start the editor {}: {e}", escape(prog)),
    })
}
