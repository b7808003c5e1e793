//! Which editor opens a file and how it is told the line: `$VISUAL`, then `$EDITOR`, then
//! `vi`, split like a shell word list (no shell runs), and the line argument its program
//! understands (`+LINE`, `--goto file:line`, `file:line`, or none).

/// The editor command a person asked for: the first of `visual`, `editor` that is not
/// blank, else `vi` (what POSIX `crontab -e` and `git` fall back to).
pub fn command(visual: Option<&str>, editor: Option<&str>) -> String {
    [visual, editor]
        .into_iter()
        .flatten()
        .find(|s| !s.trim().is_empty())
        .unwrap_or("vi")
        .to_owned()
}

/// How an editor program is told the line to open a file at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineArg {
    /// `+LINE FILE` (vi, vim, nvim, helix, kakoune, nano, emacs, micro).
    Plus,
    /// `--goto FILE:LINE` (VS Code and its forks).
    Goto,
    /// `FILE:LINE` (Sublime Text, Zed).
    Colon,
    /// The file alone: the line cannot be given.
    None,
}

/// The line style of a program, by its file name (`/usr/bin/nvim`, `code.exe`).
pub(crate) fn line_arg(program: &str) -> LineArg {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    match name {
        "vi" | "vim" | "nvim" | "gvim" | "mvim" | "view" | "hx" | "helix" | "kak" | "kakoune"
        | "nano" | "pico" | "emacs" | "emacsclient" | "micro" | "ne" | "joe" => LineArg::Plus,
        "code" | "code-insiders" | "codium" | "vscodium" | "cursor" => LineArg::Goto,
        "subl" | "sublime_text" | "zed" | "zeditor" => LineArg::Colon,
        _ => LineArg::None,
    }
}

/// The argument vector that opens `file` (at `line` when given) with the editor `command`
/// (`"code --wait"`, `"nvim"`); `Err` says why there is none (blank, unbalanced quotes).
pub fn argv(command: &str, file: &str, line: Option<u32>) -> Result<Vec<String>, String> {
    let mut argv = shell_words::split(command)
        .map_err(|e| format!("cannot read the editor command {command:?}: {e}"))?;
    let Some(program) = argv.first() else {
        return Err("the editor command is empty".into());
    };
    // a file named like an option is never taken for one
    let file = if file.starts_with(['-', '+']) {
        format!("./{file}")
    } else {
        file.to_owned()
    };
    match (line_arg(program), line.filter(|l| *l > 0)) {
        (LineArg::Plus, Some(l)) => argv.extend([format!("+{l}"), file]),
        (LineArg::Goto, Some(l)) => argv.extend(["--goto".to_owned(), format!("{file}:{l}")]),
        (LineArg::Colon, Some(l)) => argv.push(format!("{file}:{l}")),
        _ => argv.push(file),
    }
    Ok(argv)
}

/// Whether `file` (relative to the workspace `root`) may be handed to an editor,
/// checked when it is handed over: it must be a regular file whose real path lies
/// inside the workspace (a link inside that stays inside is fine). `Err` is the
/// reason, for the status line; nothing is started then.
pub fn handable(root: &std::path::Path, file: &str) -> Result<(), String> {
    use super::read::{Error, open};
    let shown = crate::sanitize::escape(file);
    let p = std::path::Path::new(file);
    if p.is_absolute()
        || p.components().any(|c| {
            !matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
    {
        return Err(format!("{shown} is outside the workspace: not opened"));
    }
    match open(&root.join(p), Some(root)) {
        Ok(_) => Ok(()),
        Err(Error::LinkOut) => Err(format!("{shown} leads out of the workspace: not opened")),
        Err(Error::NotRegular(what)) => Err(format!(
            "{shown} is a {what}, not a regular file: not opened"
        )),
        Err(Error::Missing(_)) => Err(format!("{shown} is not there: not opened")),
        Err(e) => Err(format!("{shown}: {e}: not opened")),
    }
}

/// The argument vector that opens `file` under `root` with the editor `command`
/// ([`argv`]), after [`handable`] says it may: what every editor hand-off
/// (the cockpit's `E`, `new`'s plan entry) calls.
pub fn hand_over(
    root: &std::path::Path,
    command: &str,
    file: &str,
    line: Option<u32>,
) -> Result<Vec<String>, String> {
    handable(root, file)?;
    argv(command, file, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_that_stays_inside_is_handed_over() {
        use std::os::unix::fs::symlink;
        let d = tempfile::tempdir().expect("dir");
        let root = &d.path().join("ws");
        let out = &d.path().join("out");
        std::fs::create_dir_all(root.join("tests")).expect("mkdir");
        std::fs::create_dir_all(out).expect("mkdir");
        std::fs::write(root.join("tests/a.ts"), "a\n").expect("w");
        std::fs::write(out.join("secret.ts"), "s\n").expect("w");
        symlink(out.join("secret.ts"), root.join("tests/lnk.ts")).expect("ln");
        symlink(out, root.join("tests/outdir")).expect("ln");
        symlink("/dev/zero", root.join("tests/zero.ts")).expect("ln");
        symlink("a.ts", root.join("tests/inside.ts")).expect("ln");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("tests/fifo.ts"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .expect("fifo");
        assert_eq!(
            hand_over(root, "vi", "tests/a.ts", Some(3)),
            Ok(crate::testkit::strings(&["vi", "+3", "tests/a.ts"]))
        );
        assert!(
            handable(root, "tests/inside.ts").is_ok(),
            "a link inside stays inside"
        );
        for (f, why) in [
            ("tests/lnk.ts", "leads out"),
            ("tests/outdir/secret.ts", "leads out"),
            ("tests/zero.ts", "leads out"),
            ("tests/fifo.ts", "FIFO"),
            ("tests", "folder"),
            ("tests/none.ts", "not there"),
            ("../out/secret.ts", "outside"),
            ("/etc/passwd", "outside"),
        ] {
            let e = hand_over(root, "vi", f, Some(1)).expect_err(f);
            assert!(e.contains(why) && e.contains("not opened"), "{f}: {e}");
        }
    }
    use crate::testkit::strings;

    #[test]
    fn visual_then_editor_then_vi() {
        assert_eq!(command(Some("hx"), Some("nano")), "hx");
        assert_eq!(command(Some("  "), Some("nano")), "nano");
        assert_eq!(command(None, Some("")), "vi");
        assert_eq!(command(None, None), "vi");
    }

    #[test]
    fn each_editor_gets_the_line_its_way() {
        for e in ["vi", "vim", "nvim", "hx", "kak", "nano", "emacs", "micro"] {
            assert_eq!(
                argv(e, "a/b.ts", Some(12)),
                Ok(strings(&[e, "+12", "a/b.ts"])),
                "{e}"
            );
        }
        assert_eq!(
            argv("/usr/local/bin/nvim", "x.yaml", Some(3)),
            Ok(strings(&["/usr/local/bin/nvim", "+3", "x.yaml"]))
        );
        assert_eq!(
            argv("code --wait", "x.yaml", Some(7)),
            Ok(strings(&["code", "--wait", "--goto", "x.yaml:7"]))
        );
        assert_eq!(
            argv("subl -w", "x.yaml", Some(7)),
            Ok(strings(&["subl", "-w", "x.yaml:7"]))
        );
        assert_eq!(
            argv("my-editor", "x.yaml", Some(7)),
            Ok(strings(&["my-editor", "x.yaml"]))
        );
        // no line known: the file alone, whatever the editor
        assert_eq!(argv("code", "x.ts", None), Ok(strings(&["code", "x.ts"])));
        assert_eq!(argv("vim", "x.ts", Some(0)), Ok(strings(&["vim", "x.ts"])));
    }

    #[test]
    fn the_command_is_split_like_shell_words_without_a_shell() {
        assert_eq!(
            argv("'/opt/My Editor/bin/vim' -u NONE", "f", Some(2)),
            Ok(strings(&[
                "/opt/My Editor/bin/vim",
                "-u",
                "NONE",
                "+2",
                "f"
            ]))
        );
        // what a shell would expand stays as typed
        assert_eq!(
            argv("vim $(rm -rf x)", "f", None),
            Ok(strings(&["vim", "$(rm", "-rf", "x)", "f"]))
        );
        assert!(argv("vim 'unclosed", "f", None).is_err());
        assert!(argv("   ", "f", None).is_err());
        assert_eq!(argv("vi", "-rf", None), Ok(strings(&["vi", "./-rf"])));
        // a name like vi's own `+cmd` is never a command to the editor either
        assert_eq!(
            argv("vi", "+!touch x", Some(2)),
            Ok(strings(&["vi", "+2", "./+!touch x"]))
        );
    }
}
