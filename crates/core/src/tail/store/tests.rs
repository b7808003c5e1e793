use super::*;
use crate::workspace::read::count;

fn wait_for(f: &RunFollow, until: impl Fn(&RunChange) -> bool) -> Vec<RunChange> {
    let end = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    loop {
        assert!(Instant::now() < end, "never: {got:?}");
        if let Ok(c) = f.next(Duration::from_millis(50)) {
            let done = until(&c);
            got.push(c);
            if done {
                return got;
            }
        }
    }
}

/// A run followed by two clients is read once: its timeline opened once,
/// its `meta.json` opened once (never while it is not there), both clients
/// told every line in order, and the end.
#[test]
fn two_clients_of_one_run_share_one_reading_of_its_files() {
    let d = tempfile::tempdir().expect("tmp");
    let dir = d.path().canonicalize().expect("real").join("r");
    std::fs::create_dir(&dir).expect("mkdir");
    let counting = count::opens_under(&dir);
    let store = RunStore::new(Duration::from_millis(20));
    let a = store.follow(&dir);
    let b = store.follow(&dir);
    // polled a while with nothing there: nothing opened
    std::thread::sleep(Duration::from_millis(100));
    let line = |n: u32| format!("{{\"type\":\"step\",\"name\":\"s{n}\",\"status\":\"ok\"}}\n");
    std::fs::write(dir.join("timeline.jsonl"), line(1)).expect("w");
    store.touched(&dir.join("timeline.jsonl"));
    wait_for(&a, |c| !c.lines.is_empty());
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("timeline.jsonl"))
        .expect("open");
    std::io::Write::write_all(&mut f, line(2).as_bytes()).expect("w");
    std::io::Write::write_all(
        &mut f,
        b"{\"type\":\"step\",\"name\":\"s3\",\"status\":\"ok\"}",
    )
    .expect("w");
    std::fs::write(dir.join("meta.json"), r#"{"status":"passed"}"#).expect("w");
    store.touched(&dir.join("meta.json"));
    // the store reads as fast as the slowest client takes: both take here
    let (mut seen_a, mut seen_b) = (Vec::new(), Vec::new());
    let end = Instant::now() + Duration::from_secs(20);
    while !(seen_a.last().is_some_and(|c: &RunChange| c.finished)
        && seen_b.last().is_some_and(|c: &RunChange| c.finished))
    {
        assert!(
            Instant::now() < end,
            "never finished: {seen_a:?} {seen_b:?}"
        );
        seen_a.extend(a.next(Duration::from_millis(10)));
        seen_b.extend(b.next(Duration::from_millis(10)));
    }
    let names = |seen: Vec<RunChange>| -> Vec<String> {
        seen.into_iter()
            .flat_map(|c| c.lines)
            .map(|l| l.event.name)
            .collect()
    };
    assert_eq!(names(seen_a), ["s2", "s3"]);
    assert_eq!(names(seen_b), ["s1", "s2", "s3"]);
    let snap = a.snapshot();
    assert!(snap.ended);
    assert_eq!(snap.events().count(), 3);
    assert_eq!(snap.meta.as_deref(), Some(&br#"{"status":"passed"}"#[..]));
    assert_eq!(
        counting.of(Path::new("timeline.jsonl")),
        count::Opens {
            found: 1,
            missing: 0
        }
    );
    assert_eq!(
        counting.of(Path::new("meta.json")),
        count::Opens {
            found: 1,
            missing: 0
        }
    );
    // a client that comes late starts from what was read: lines it has not
    // seen, not a reset of what it holds (a launch's pane keeps its own rows)
    let late = store.follow(&dir);
    let first = late.next(Duration::from_secs(5)).expect("the snapshot");
    assert!(
        !first.reset && first.finished && first.lines.len() == 3,
        "{first:?}"
    );
    drop((a, b, late));
    assert_eq!(store.followed(), 0);
}
