use super::*;

fn mkfifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .expect("mkfifo");
    assert!(ok.success());
}

#[test]
fn owned_dir_refuses_a_link_and_writes_nothing_beyond_it() {
    let ws = tempfile::tempdir().expect("ws");
    let out = tempfile::tempdir().expect("out");
    std::fs::create_dir_all(ws.path().join("a")).expect("mkdir");
    std::os::unix::fs::symlink(out.path(), ws.path().join("a/b")).expect("link");
    let e = owned_dir(ws.path(), Path::new("a/b/c")).expect_err("through a link");
    assert!(e.to_string().contains("a/b: a symbolic link"), "{e}");
    assert_eq!(std::fs::read_dir(out.path()).expect("ls").count(), 0);
    let made = owned_dir(ws.path(), Path::new("x/y")).expect("made");
    assert!(made.is_dir());
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let d = tempfile::tempdir().expect("dir");
    let p = d.path().join("f");
    mkfifo(&p);
    let e = read(&p, Some(d.path()), Kind::Config).expect_err("fifo");
    assert!(matches!(e, Error::NotRegular("FIFO")), "{e:?}");
    assert_eq!(e.rule("config"), "not-a-regular-file");
    let e = read(&p, None, Kind::Config).expect_err("fifo");
    assert!(matches!(e, Error::NotRegular("FIFO")), "{e:?}");
}

#[test]
fn devices_and_folders_are_refused() {
    let e = read(Path::new("/dev/zero"), None, Kind::RunJson).expect_err("dev");
    assert!(matches!(e, Error::NotRegular("device")), "{e:?}");
    let d = tempfile::tempdir().expect("dir");
    let e = read(d.path(), None, Kind::RunJson).expect_err("dir");
    assert!(matches!(e, Error::NotRegular("folder")), "{e:?}");
}

#[test]
fn links_that_leave_the_folder_are_refused_links_inside_are_read() {
    let d = tempfile::tempdir().expect("dir");
    let inner = d.path().join("in");
    std::fs::create_dir(&inner).expect("mkdir");
    std::fs::write(d.path().join("outside"), "secret").expect("w");
    std::fs::write(inner.join("real"), "ok").expect("w");
    std::os::unix::fs::symlink("../outside", inner.join("out")).expect("ln");
    std::os::unix::fs::symlink("real", inner.join("same")).expect("ln");
    std::os::unix::fs::symlink("nowhere", inner.join("dangling")).expect("ln");
    std::os::unix::fs::symlink("/dev/zero", inner.join("zero")).expect("ln");
    for bad in ["out", "dangling", "zero"] {
        let e = read(&inner.join(bad), Some(&inner), Kind::RunJson).expect_err(bad);
        assert!(matches!(e, Error::LinkOut), "{bad}: {e:?}");
        assert_eq!(e.rule("meta"), "symlink-not-followed");
    }
    assert_eq!(
        read(&inner.join("same"), Some(&inner), Kind::RunJson).expect("in"),
        b"ok"
    );
    let e = read(&inner.join("none"), Some(&inner), Kind::RunJson).expect_err("none");
    assert!(e.is_missing());
}

#[test]
fn a_sparse_giant_is_refused_by_its_size() {
    let d = tempfile::tempdir().expect("dir");
    let p = d.path().join("testdeck.toml");
    File::create(&p).expect("c").set_len(1 << 30).expect("len");
    let e = read(&p, Some(d.path()), Kind::Config).expect_err("big");
    assert!(matches!(e, Error::TooLarge { size, cap } if size == 1 << 30 && cap == 1 << 20));
    assert_eq!(e.rule("config"), "config-too-large");
    assert_eq!(e.rule(""), "file-too-large");
    let (head, more) = read_head(&p, None, Kind::RuntimeEvents).expect("head");
    assert!(more);
    assert_eq!(head.len() as u64, Kind::RuntimeEvents.cap());
}

#[test]
fn atomic_write_replaces_and_leaves_no_temp() {
    let d = tempfile::tempdir().expect("dir");
    let p = d.path().join("a.yaml");
    write_atomic(&p, b"one").expect("w1");
    write_atomic(&p, b"two").expect("w2");
    assert_eq!(std::fs::read(&p).expect("r"), b"two");
    assert_eq!(std::fs::read_dir(d.path()).expect("ls").count(), 1);
}

/// Every file and folder under `dir`, relative, sorted (links as links).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("ls").flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).expect("under").display().to_string());
            if e.file_type().expect("type").is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_guarded_write_refuses_a_link_at_each_part_and_writes_nothing() {
    use std::os::unix::fs::{PermissionsExt as _, symlink};
    let d = tempfile::tempdir().expect("dir");
    let root = &d.path().join("ws");
    let out = &d.path().join("out");
    std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
    std::fs::create_dir_all(out.join("b")).expect("mkdir");
    std::fs::write(out.join("f.txt"), b"outside").expect("w");
    // a plain write makes its folders and the file, 0644 (or as asked)
    write_beneath(root, Path::new("x/y/new.txt"), b"one").expect("w");
    write_beneath(root, Path::new("x/y/new.txt"), b"two").expect("replace");
    assert_eq!(std::fs::read(root.join("x/y/new.txt")).expect("r"), b"two");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&root.join("x/y/new.txt")), 0o644);
    let script = WriteMode {
        mode: 0o755,
        replace: true,
    };
    write_beneath_with(root, Path::new("s.sh"), b"#!/bin/sh\n", script).expect("w");
    assert_eq!(mode(&root.join("s.sh")), 0o755);
    // new only: a file there is AlreadyExists and stays as it was
    let e = write_beneath_with(root, Path::new("x/y/new.txt"), b"3", WriteMode::NEW)
        .expect_err("there");
    assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(root.join("x/y/new.txt")).expect("r"), b"two");
    // a link as the first folder, a deeper folder, and the file itself
    symlink(out, root.join("l1")).expect("ln");
    symlink(out.join("b"), root.join("a/b/l2")).expect("ln");
    symlink(out.join("f.txt"), root.join("a/f.txt")).expect("ln");
    symlink("/dev/null", root.join("a/null")).expect("ln");
    let fifo = root.join("a/fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        FileType::Fifo,
        Mode::from_raw_mode(0o644),
        0,
    )
    .expect("fifo");
    let with_links = (tree(root), tree(out));
    for (rel, at) in [
        ("l1/new.txt", "l1: a symbolic link"),
        ("l1/deeper/new.txt", "l1: a symbolic link"),
        ("a/b/l2/new.txt", "a/b/l2: a symbolic link"),
        ("a/f.txt", "a/f.txt: a symbolic link"),
        ("a/null", "a/null: a symbolic link"),
        ("a/fifo", "a/fifo: not a regular file"),
        ("a", "a: a folder"),
        ("a/f.txt/x", "a/f.txt: a symbolic link"),
        ("../out/f.txt", "not a path under the workspace"),
        ("/etc/passwd", "not a path under the workspace"),
    ] {
        let e = write_beneath(root, Path::new(rel), b"evil").expect_err(rel);
        assert!(is_refusal(&e), "{rel}: {e}");
        assert!(e.to_string().contains(at), "{rel}: {e}");
        assert!(e.to_string().contains("nothing written"), "{rel}: {e}");
        assert!(check_write(root, Path::new(rel)).is_err(), "{rel}");
        assert_eq!((tree(root), tree(out)), with_links, "{rel} wrote something");
    }
    assert_eq!(std::fs::read(out.join("f.txt")).expect("r"), b"outside");
    // a set of writes with one link among them: refused before the first
    let set = [Path::new("fine/one.txt"), Path::new("a/b/l2/two.txt")];
    assert!(check_writes(root, set).is_err());
    assert!(!root.join("fine").exists());
    // the cap
    let big = vec![0u8; usize::try_from(WRITE_CAP).expect("cap") + 1];
    assert!(is_refusal(
        &write_beneath(root, Path::new("big"), &big).expect_err("cap")
    ));
}

#[test]
fn a_guarded_rename_moves_files_and_folders_never_through_or_over_anything() {
    use std::os::unix::fs::symlink;
    let d = tempfile::tempdir().expect("dir");
    let root = &d.path().join("ws");
    let out = &d.path().join("out");
    std::fs::create_dir_all(root.join("tests/temp")).expect("mkdir");
    std::fs::create_dir_all(root.join("runs/r1")).expect("mkdir");
    std::fs::create_dir_all(out).expect("mkdir");
    std::fs::write(root.join("tests/temp/a.ts"), b"a").expect("w");
    std::fs::write(root.join("runs/r1/meta.json"), b"{}").expect("w");
    rename_beneath(
        root,
        Path::new("tests/temp/a.ts"),
        Path::new("tests/x/y/a.ts"),
    )
    .expect("file");
    assert_eq!(std::fs::read(root.join("tests/x/y/a.ts")).expect("r"), b"a");
    rename_beneath(root, Path::new("runs/r1"), Path::new("moved/r1")).expect("folder");
    assert!(root.join("moved/r1/meta.json").is_file());
    // over something there: refused, both as they were
    std::fs::write(root.join("tests/temp/b.ts"), b"b").expect("w");
    let e = rename_beneath(
        root,
        Path::new("tests/temp/b.ts"),
        Path::new("tests/x/y/a.ts"),
    )
    .expect_err("there");
    assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(root.join("tests/x/y/a.ts")).expect("r"), b"a");
    // through a link, to or from, or a link itself: refused
    symlink(out, root.join("tests/lnk")).expect("ln");
    symlink(out, root.join("tests/temp/c.ts")).expect("ln");
    for (from, to) in [
        ("tests/temp/b.ts", "tests/lnk/b.ts"),
        ("tests/lnk/b.ts", "tests/z.ts"),
        ("tests/temp/c.ts", "tests/c.ts"),
    ] {
        let e = rename_beneath(root, Path::new(from), Path::new(to)).expect_err(from);
        assert!(is_refusal(&e), "{from} -> {to}: {e}");
    }
    assert!(root.join("tests/temp/b.ts").is_file());
    assert_eq!(std::fs::read_dir(out).expect("ls").count(), 0);
}

#[test]
fn own_folder_is_made_private_fixed_when_ours_and_refused_when_not() {
    use std::os::unix::fs::{PermissionsExt as _, symlink};
    let d = tempfile::tempdir().expect("dir");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    let made = d.path().join("cache/testdeck/history");
    own_folder(&made).expect("made");
    assert_eq!(mode(&made), 0o700);
    let open = d.path().join("open");
    std::fs::create_dir(&open).expect("mkdir");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    own_folder(&open).expect("ours: fixed");
    assert_eq!(mode(&open), 0o700);
    symlink(&open, d.path().join("link")).expect("ln");
    let e = own_folder(&d.path().join("link")).expect_err("a link");
    assert!(e.to_string().contains("not used"), "{e}");
    // another user's folder (only root can make one here)
    if rustix::process::geteuid().is_root() {
        let theirs = d.path().join("theirs");
        std::fs::create_dir(&theirs).expect("mkdir");
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("chown");
        let e = own_folder(&theirs).expect_err("theirs");
        assert!(e.to_string().contains("another user"), "{e}");
        assert_eq!(mode(&theirs), 0o777, "another user's folder is left alone");
    } else {
        eprintln!("another user's folder: skipped (not root)");
    }
}

#[test]
fn checked_copy_copies_what_is_inside_and_refuses_a_link_out() {
    use std::os::unix::fs::PermissionsExt as _;
    let run = tempfile::tempdir().expect("run");
    let out = tempfile::tempdir().expect("out");
    std::fs::create_dir(run.path().join("artifacts")).expect("mkdir");
    let inside = run.path().join("artifacts/shot.png");
    std::fs::write(&inside, b"picture").expect("w");
    let copy = checked_copy(&inside, run.path()).expect("copied");
    assert_eq!(std::fs::read(&copy).expect("r"), b"picture");
    assert_eq!(copy.file_name(), inside.file_name(), "the name is kept");
    let dir = copy.parent().expect("its folder");
    let mode = std::fs::metadata(dir).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "a private folder");
    std::fs::remove_dir_all(dir).expect("rm");
    // the same name, now a link out of the run folder: refused, nothing copied
    std::fs::write(out.path().join("secret"), b"secret").expect("w");
    std::fs::remove_file(&inside).expect("rm");
    std::os::unix::fs::symlink(out.path().join("secret"), &inside).expect("link");
    let e = checked_copy(&inside, run.path()).expect_err("a link out");
    assert!(matches!(e, Error::LinkOut), "{e:?}");
}
