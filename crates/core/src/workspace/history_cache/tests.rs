use super::*;
use crate::workspace::changes::Update;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

const CASE_A: &str = "tests/logs/shop/backend/cart/add";
const CASE_B: &str = "tests/logs/shop/backend/cart/remove";

fn meta(status: &str) -> String {
    format!(
        r#"{{"schemaVersion":4,"status":"{status}","startedAt":"2026-03-10T12:00:00Z","stats":{{"durationMs":42,"steps":3}}}}"#
    )
}

/// A finished run (`status`) at `CASE/run`.
fn run(root: &Path, case: &str, run: &str, status: &str) {
    write(root, &format!("{case}/{run}/timeline.jsonl"), "{}\n");
    write(root, &format!("{case}/{run}/meta.json"), &meta(status));
}

/// Two cases, three finished runs and one in progress; settled.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().expect("tmp");
    let root = d.path().canonicalize().expect("real");
    write(&root, "tests/shop/backend/cart/add.test.ts", "");
    run(&root, CASE_A, "20260310-120000-000", "passed");
    run(&root, CASE_A, "20260311-120000-000", "failed");
    run(&root, CASE_B, "20260310-120000-000", "passed");
    // a wrong type: a problem kept with its run
    write(
        &root,
        &format!("{CASE_B}/20260312-120000-000/meta.json"),
        r#"{"schemaVersion":4,"status":"passed","stats":{"steps":"three"}}"#,
    );
    write(
        &root,
        &format!("{CASE_B}/20260313-120000-000/timeline.jsonl"),
        "{}\n",
    );
    crate::testkit::settle_logs(&root);
    (d, root)
}

fn judge(root: &Path) -> Judge {
    Judge::load(root, &crate::workspace::config::Runs::default())
}

/// The cache of the workspace at `root` as loaded now, stored in `dir`.
fn stored(root: &Path, dir: &Path) -> HistoryCache {
    let ws = Workspace::load(root).expect("load");
    let mut c = HistoryCache::of_workspace(&ws, SystemTime::now());
    assert!(c.store(dir, root).expect("store"), "nothing written");
    c
}

fn paths(runs: &[RawRun]) -> Vec<(String, RunStatus)> {
    runs.iter().map(|r| (r.path.clone(), r.status)).collect()
}

#[test]
fn a_stored_cache_loads_as_the_history_it_was_made_of() {
    let (_d, root) = workspace();
    let cache_dir = tempfile::tempdir().expect("cache");
    stored(&root, cache_dir.path());
    let ws = Workspace::load(&root).expect("load");
    let c = HistoryCache::load(cache_dir.path(), &root).expect("loaded");
    let chunk = c.history();
    // the run in progress is not cached: the others are, in the model's order
    let finished: Vec<RawRun> = ws
        .logs
        .runs
        .iter()
        .filter(|r| r.status.is_finished())
        .cloned()
        .collect();
    assert_eq!(finished.len(), 4);
    assert_eq!(paths(&chunk.runs), paths(&finished));
    for (a, b) in chunk.runs.iter().zip(&finished) {
        assert_eq!(a.meta, b.meta);
        assert_eq!(a.scope, b.scope);
        assert_eq!(a.case_id, b.case_id);
        assert_eq!(a.run_id, b.run_id);
        assert_eq!(
            (a.has_timeline, a.has_runtime_events, a.has_artifacts_json),
            (b.has_timeline, b.has_runtime_events, b.has_artifacts_json)
        );
    }
    // the wrong type read in a run's meta.json comes with it
    let kept: Vec<&str> = chunk.problems.iter().map(|p| p.rule.as_str()).collect();
    assert_eq!(kept, ["meta-wrong-type"], "{:?}", chunk.problems);
    // nothing changed: a store writes nothing
    let mut again = HistoryCache::of_workspace(&ws, SystemTime::now());
    again.written = c.written;
    assert!(!again.store(cache_dir.path(), &root).expect("store"));
}

#[test]
fn what_changed_in_the_last_seconds_is_not_vouched_for() {
    let (_d, root) = workspace();
    // a run written just now: its folder and its case folder are too fresh
    run(&root, CASE_A, "20260320-120000-000", "passed");
    let ws = Workspace::load(&root).expect("load");
    let c = HistoryCache::of_workspace(&ws, SystemTime::now());
    let a = c
        .cases
        .iter()
        .find(|c| c.dir == "shop/backend/cart/add")
        .expect("case a");
    assert!(a.stamp.is_none(), "a fresh case folder vouched for");
    assert_eq!(a.runs.len(), 2, "the fresh run cached");
    // a case with a run in progress is listed at each open
    let b = c
        .cases
        .iter()
        .find(|c| c.dir == "shop/backend/cart/remove")
        .expect("case b");
    assert!(b.stamp.is_none());
}

/// Every way a file is not one to show: ignored, never a panic.
#[test]
fn a_corrupt_truncated_foreign_old_empty_or_giant_cache_is_ignored() {
    let (_d, root) = workspace();
    let (_o, other) = workspace();
    let cache_dir = tempfile::tempdir().expect("cache");
    let dir = cache_dir.path();
    stored(&root, dir);
    let file = file_of(dir, &root).expect("file");
    let good = std::fs::read(&file).expect("read");
    assert!(HistoryCache::load(dir, &root).is_some());
    let put = |bytes: &[u8]| std::fs::write(&file, bytes).expect("write");
    // a byte of the payload flipped
    let mut bad = good.clone();
    let last = bad.len() - 3;
    bad[last] ^= 0x5a;
    put(&bad);
    assert!(HistoryCache::load(dir, &root).is_none(), "corrupt");
    // cut short, at every length of the header and in the payload
    for n in [0, 4, 8, 12, 20, good.len() / 2, good.len() - 1] {
        put(&good[..n]);
        assert!(HistoryCache::load(dir, &root).is_none(), "truncated at {n}");
    }
    // another format version
    let mut old = good.clone();
    old[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    put(&old);
    assert!(HistoryCache::load(dir, &root).is_none(), "wrong version");
    // another workspace's file under this one's name
    stored(&other, dir);
    let foreign = std::fs::read(file_of(dir, &other).expect("file")).expect("read");
    put(&foreign);
    assert!(HistoryCache::load(dir, &root).is_none(), "foreign");
    // random bytes with a valid header: the payload does not decode
    let mut noise = good.clone();
    let start = good.len() - 40;
    for (i, b) in noise[start..].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37).wrapping_add(11);
    }
    put(&noise);
    assert!(HistoryCache::load(dir, &root).is_none(), "noise");
    // over the cap: refused by its size, unread
    std::fs::File::create(&file)
        .expect("create")
        .set_len(MAX_BYTES + 1)
        .expect("len");
    assert!(HistoryCache::load(dir, &root).is_none(), "giant");
    // a folder in its place, a missing file
    std::fs::remove_file(&file).expect("rm");
    assert!(HistoryCache::load(dir, &root).is_none(), "missing");
    std::fs::create_dir(&file).expect("mkdir");
    assert!(HistoryCache::load(dir, &root).is_none(), "a folder");
}

/// A payload another writer made with what no scan would hold (a climbing
/// folder name) is refused whole.
#[test]
fn a_cache_naming_folders_no_scan_would_is_refused() {
    let (_d, root) = workspace();
    let cache_dir = tempfile::tempdir().expect("cache");
    let mut c = stored(&root, cache_dir.path());
    c.cases[0].dir = "../../etc".into();
    c.written = None;
    assert!(c.store(cache_dir.path(), &root).expect("store"));
    assert!(HistoryCache::load(cache_dir.path(), &root).is_none());
}

fn run_updates(u: &[Update]) -> Vec<(String, RunStatus)> {
    u.iter()
        .filter_map(|u| match u {
            Update::Run(r, _) => Some((r.path.clone(), r.status)),
            _ => None,
        })
        .collect()
}

fn removals(u: &[Update]) -> Vec<String> {
    u.iter()
        .filter_map(|u| match u {
            Update::RemoveRuns(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn verify_reads_nothing_when_nothing_changed() {
    let (_d, root) = workspace();
    let cache_dir = tempfile::tempdir().expect("cache");
    stored(&root, cache_dir.path());
    let c = HistoryCache::load(cache_dir.path(), &root).expect("loaded");
    let v = c.verify(&root, &judge(&root));
    // only the run in progress (never cached) is read
    assert_eq!(v.read, 1);
    assert_eq!(
        run_updates(&v.updates),
        [(
            format!("{CASE_B}/20260313-120000-000"),
            RunStatus::InProgress
        )]
    );
    assert!(removals(&v.updates).is_empty(), "{:?}", v.updates);
    // and with nothing in progress, nothing at all
    std::fs::remove_dir_all(root.join(CASE_B).join("20260313-120000-000")).expect("rm");
    crate::testkit::settle_logs(&root);
    stored(&root, cache_dir.path());
    let c = HistoryCache::load(cache_dir.path(), &root).expect("loaded");
    let mut v = c.verify(&root, &judge(&root));
    assert_eq!(v.read, 0);
    assert!(v.updates.is_empty(), "{:?}", v.updates);
    assert!(v.problems.is_empty(), "{:?}", v.problems);
    // the cache as verified is the one on disk: nothing to write
    assert!(!v.cache.store(cache_dir.path(), &root).expect("store"));
}

/// The model a full load makes, and the one the cache makes with the updates
/// of its check applied, hold the same runs.
fn same_as_a_full_load(root: &Path, cache_dir: &Path) -> Verified {
    let c = HistoryCache::load(cache_dir, root).expect("loaded");
    let mut ws = Workspace::load_tree(root).expect("tree");
    ws.add_history(c.history());
    let v = c.verify(root, &judge(root));
    ws.apply(v.updates.clone());
    let full = Workspace::load(root).expect("load");
    assert_eq!(paths(&ws.logs.runs), paths(&full.logs.runs));
    // the history whole, as a check that found much changed hands it on
    let whole = v.history();
    assert_eq!(paths(&whole.runs), paths(&full.logs.runs));
    let said = |ps: &[Problem]| {
        let mut v: Vec<(String, String)> = ps
            .iter()
            .filter(|p| p.file.starts_with("tests/logs"))
            .map(|p| (p.file.clone(), p.rule.clone()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(said(&whole.problems), said(&full.problems));
    v
}

#[test]
fn verify_finds_a_new_run_a_changed_run_and_a_removed_case_folder() {
    let (_d, root) = workspace();
    let cache_dir = tempfile::tempdir().expect("cache");
    stored(&root, cache_dir.path());
    // a new run in a cached case folder
    run(&root, CASE_A, "20260320-120000-000", "failed");
    // a run folder written again (removed and made anew: a new folder)
    let again = root.join(CASE_A).join("20260310-120000-000");
    std::fs::remove_dir_all(&again).expect("rm");
    run(&root, CASE_A, "20260310-120000-000", "failed");
    // the run in progress ended
    write(
        &root,
        &format!("{CASE_B}/20260313-120000-000/meta.json"),
        &meta("passed"),
    );
    let v = same_as_a_full_load(&root, cache_dir.path());
    let mut read = run_updates(&v.updates);
    read.sort();
    assert_eq!(
        read,
        [
            (format!("{CASE_A}/20260310-120000-000"), RunStatus::Failed),
            (format!("{CASE_A}/20260320-120000-000"), RunStatus::Failed),
            (format!("{CASE_B}/20260313-120000-000"), RunStatus::Passed),
        ]
    );
    // the unchanged run of the changed case folder was only stat'ed
    assert_eq!(v.read, 3);
    assert!(removals(&v.updates).is_empty(), "{:?}", v.updates);

    // a case folder removed, a run folder removed, a domain removed
    let mut v = v;
    crate::testkit::settle_logs(&root);
    v.cache.written = None;
    let mut c = v.cache;
    assert!(c.store(cache_dir.path(), &root).expect("store"));
    std::fs::remove_dir_all(root.join(CASE_B)).expect("rm");
    std::fs::remove_dir_all(root.join(CASE_A).join("20260311-120000-000")).expect("rm");
    run(
        &root,
        "tests/logs/kb/api/search/find",
        "20260301-120000-000",
        "passed",
    );
    let v = same_as_a_full_load(&root, cache_dir.path());
    let mut gone = removals(&v.updates);
    gone.sort();
    assert_eq!(
        gone,
        [format!("{CASE_A}/20260311-120000-000"), CASE_B.to_owned(),]
    );
    let mut c = v.cache;
    c.written = None;
    crate::testkit::settle_logs(&root);
    assert!(c.store(cache_dir.path(), &root).expect("store"));
    std::fs::remove_dir_all(root.join("tests/logs/shop")).expect("rm");
    let v = same_as_a_full_load(&root, cache_dir.path());
    assert_eq!(removals(&v.updates), ["tests/logs/shop"]);
    // and every log gone
    let mut c = v.cache;
    c.written = None;
    crate::testkit::settle_logs(&root);
    assert!(c.store(cache_dir.path(), &root).expect("store"));
    std::fs::remove_dir_all(root.join("tests/logs")).expect("rm");
    let v = same_as_a_full_load(&root, cache_dir.path());
    assert_eq!(removals(&v.updates), ["tests/logs"]);
}

/// The walk's problems of a check are what a full read's walk says: found
/// again in the folders it lists, kept from the cache for those it does not.
#[test]
fn verify_says_the_walk_s_problems_as_a_full_read_does() {
    let (_d, root) = workspace();
    std::os::unix::fs::symlink("/etc", root.join(CASE_A).join("a-link")).expect("link");
    std::os::unix::fs::symlink("/etc", root.join("tests/logs/shop/elsewhere")).expect("link");
    crate::testkit::settle_logs(&root);
    let cache_dir = tempfile::tempdir().expect("cache");
    stored(&root, cache_dir.path());
    let v = same_as_a_full_load(&root, cache_dir.path());
    let mut got: Vec<String> = v.problems.iter().map(|p| p.file.clone()).collect();
    got.sort();
    assert_eq!(
        got,
        [
            format!("{CASE_A}/a-link"),
            "tests/logs/shop/elsewhere".to_owned()
        ]
    );
}

/// A cache folder that was there already with mode 0777: the person's is made
/// 0700 before the index goes in (0600); another user's is not used at all.
#[test]
fn a_cache_folder_others_can_write_to_is_fixed_or_not_used() {
    use std::os::unix::fs::PermissionsExt as _;
    let (_d, root) = workspace();
    let base = tempfile::tempdir().expect("cache");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    let dir = base.path().join("testdeck/history");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    stored(&root, &dir);
    assert_eq!(mode(&dir), 0o700, "the person's folder made private first");
    let file = file_of(&dir, &root).expect("file");
    assert_eq!(mode(&file), 0o600, "the index is the person's alone");
    assert!(HistoryCache::load(&dir, &root).is_some());
    if rustix::process::geteuid().is_root() {
        let theirs = base.path().join("theirs");
        std::fs::create_dir(&theirs).expect("mkdir");
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("chown");
        let ws = Workspace::load(&root).expect("load");
        let mut c = HistoryCache::of_workspace(&ws, SystemTime::now());
        assert!(
            c.store(&theirs, &root).is_err(),
            "another user's folder is not used"
        );
        assert_eq!(
            std::fs::read_dir(&theirs).expect("ls").count(),
            0,
            "nothing written"
        );
        assert!(HistoryCache::load(&theirs, &root).is_none());
    } else {
        eprintln!("another user's folder: skipped (not root)");
    }
}

/// The import graph's section and the history are two files of one frame: a
/// store of one leaves the other as it is; a section without a history holds
/// no history; a file of the format before is neither.
#[test]
fn the_graph_section_and_the_history_keep_each_other() {
    let (_d, root) = workspace();
    let cache_dir = tempfile::tempdir().expect("cache");
    let dir = cache_dir.path();
    // the section first: no history to show yet
    assert!(store_section(dir, &root, &[1, 2, 3]).expect("store"));
    assert!(HistoryCache::load(dir, &root).is_none());
    assert_eq!(load_section(dir, &root), Some(vec![1, 2, 3]));
    // the history: the section stays
    let c = stored(&root, dir);
    assert_eq!(load_section(dir, &root), Some(vec![1, 2, 3]));
    // the section again: the history stays
    assert!(store_section(dir, &root, &[4]).expect("store"));
    let back = HistoryCache::load(dir, &root).expect("loaded");
    assert_eq!(paths(&back.history().runs), paths(&c.history().runs));
    assert_eq!(load_section(dir, &root), Some(vec![4]));
    // the same section: nothing written
    assert!(!store_section(dir, &root, &[4]).expect("store"));
    // files of the format before: read as neither
    let real = root.canonicalize().expect("real");
    let history = file_of(dir, &root).expect("file");
    let section = dir.join(section_name(&file_name(&real)));
    for (file, payload) in [
        (
            &history,
            postcard::to_allocvec(&back.cases).expect("payload"),
        ),
        (&section, vec![4]),
    ] {
        let mut old = frame(&real, &payload, crc32(&payload));
        old[8..12].copy_from_slice(&(FORMAT_VERSION - 1).to_le_bytes());
        std::fs::write(file, &old).expect("write");
    }
    assert!(HistoryCache::load(dir, &root).is_none());
    assert_eq!(load_section(dir, &root), None);
}

/// The header written before the payload and sealed after it is the frame of
/// the payload written at once, and reads back.
#[test]
fn a_frame_sealed_in_place_is_the_frame_written_at_once() {
    let root = Path::new("/a/workspace");
    let long = vec![7u8; 70_000];
    for payload in [&b""[..], b"x", &long[..]] {
        let crc = crc32(payload);
        let (mut bytes, at) = frame_head(root);
        bytes.extend_from_slice(payload);
        frame_seal(&mut bytes, at, crc);
        assert_eq!(bytes, frame(root, payload, crc));
        assert_eq!(unframe(&bytes, root), Some((crc, payload)));
    }
}
