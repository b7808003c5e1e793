//! The tail engine against real writers (threads and `sh` processes): partial
//! writes, bursts, truncation, replacement by rename, late creation, deletion.
//! Each test asserts the exact sequence of events: nothing lost, nothing twice,
//! order kept. Every scenario runs with filesystem events and with the timed
//! re-check used where inotify is unavailable.
#![allow(clippy::unwrap_used)]

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use testdeck_core::tail::{Follower, Start, TailEvent, TailHandle, Watch, spawn};

/// A guard against a hang, not a speed requirement.
const PATIENCE: Duration = Duration::from_secs(60);

fn modes() -> [Watch; 2] {
    [Watch::Auto, Watch::Poll(Duration::from_millis(15))]
}

/// One event line; `pad` varies the length so cut points land everywhere.
fn ev(name: &str, pad: usize) -> String {
    format!(
        "{{\"ts\":\"2026-03-15T10:15:30.112Z\",\"type\":\"step\",\"name\":\"{name}\",\"status\":\"ok\",\"message\":\"{}\",\"data\":{{\"n\":\"{name}\"}}}}\n",
        "x".repeat(pad)
    )
}

fn lines(prefix: &str, n: usize, rng: &mut fastrand::Rng) -> String {
    (1..=n)
        .map(|i| ev(&format!("{prefix}{i}"), rng.usize(0..120)))
        .collect()
}

/// What a test compares: `L<lineno>:<name>`, `I<lineno>:<name>` or the event's name.
fn show(e: &TailEvent) -> String {
    match e {
        TailEvent::Line(l) => format!("L{}:{}", l.lineno, l.event().name),
        TailEvent::Incomplete(l) => format!("I{}:{}", l.lineno, l.event().name),
        TailEvent::Unreadable(m) => format!("Unreadable {m}"),
        other => format!("{other:?}"),
    }
}

fn expect_lines(
    prefix: &str,
    range: std::ops::RangeInclusive<usize>,
    first_lineno: usize,
) -> Vec<String> {
    range
        .enumerate()
        .map(|(k, i)| format!("L{}:{prefix}{i}", first_lineno + k))
        .collect()
}

/// Collect exactly `n` events (fails after PATIENCE with what came).
fn collect(f: &mut Follower, n: usize) -> Vec<TailEvent> {
    let until = Instant::now() + PATIENCE;
    let mut got = Vec::new();
    while got.len() < n {
        assert!(
            Instant::now() < until,
            "waited too long: {} of {n} events, last: {:?}",
            got.len(),
            got.last().map(show)
        );
        got.extend(f.next_batch(Some(Duration::from_millis(200))));
    }
    assert_eq!(
        got.len(),
        n,
        "more events than expected: {:?}",
        &got[n..].iter().map(show).collect::<Vec<_>>()
    );
    got
}

/// Events until the last of them are `want` (shown): what a follower read of a
/// file caught mid-rewrite, then the file as it settled.
fn collect_until_ends_with(f: &mut Follower, want: &[String]) -> Vec<String> {
    let until = Instant::now() + PATIENCE;
    let mut got: Vec<String> = Vec::new();
    while !got.ends_with(want) {
        assert!(
            Instant::now() < until,
            "waited too long for {want:?}, got {got:?}"
        );
        got.extend(
            f.next_batch(Some(Duration::from_millis(200)))
                .iter()
                .map(show),
        );
    }
    got
}

/// After the writer is done: nothing else may come (no duplicate, no late extra).
fn assert_quiet(f: &mut Follower) {
    let more = f.next_batch(Some(Duration::from_millis(60)));
    assert!(
        more.is_empty(),
        "unexpected: {:?}",
        more.iter().map(show).collect::<Vec<_>>()
    );
}

fn append(path: &Path) -> File {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap()
}

/// Write `text` in pieces cut at random points, with tiny pauses, through one
/// unbuffered handle: the follower sees half lines all the time.
fn write_cut(file: &mut File, text: &str, rng: &mut fastrand::Rng) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let n = rng.usize(1..=200).min(bytes.len() - at);
        file.write_all(&bytes[at..at + n]).unwrap();
        at += n;
        if rng.u8(..) < 8 {
            std::thread::sleep(Duration::from_micros(rng.u64(0..800)));
        }
    }
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = crate::common::fs::scratch_dir();
    let p = dir.path().join("timeline.jsonl");
    (dir, p)
}

fn seeded() -> fastrand::Rng {
    let seed = fastrand::u64(..);
    eprintln!("seed {seed}");
    fastrand::Rng::with_seed(seed)
}

#[test]
fn partial_writes_at_random_cut_points() {
    for watch in modes() {
        let (_dir, p) = setup();
        File::create(&p).unwrap();
        let mut f = Follower::with_watch(&p, Start::Beginning, watch);
        let mut rng = seeded();
        let text = lines("e", 3000, &mut rng);
        let expected_offsets: Vec<u64> = text
            .split_inclusive('\n')
            .scan(0u64, |at, l| {
                let o = *at;
                *at += l.len() as u64;
                Some(o)
            })
            .collect();
        let writer = {
            let p = p.clone();
            let text = text.clone();
            let mut rng = fastrand::Rng::with_seed(rng.u64(..));
            std::thread::spawn(move || write_cut(&mut append(&p), &text, &mut rng))
        };
        let got = collect(&mut f, 3000);
        writer.join().unwrap();
        assert_eq!(
            got.iter().map(show).collect::<Vec<_>>(),
            expect_lines("e", 1..=3000, 1),
            "{watch:?}"
        );
        for (e, want) in got.iter().zip(&expected_offsets) {
            let TailEvent::Line(l) = e else {
                unreachable!()
            };
            assert_eq!(l.offset, *want);
            assert!(l.issues.is_empty(), "{:?}", l.issues);
            assert_eq!(l.event().data["n"], l.event().name.as_str());
        }
        assert_quiet(&mut f);
    }
}

#[test]
fn a_200k_line_burst_arrives_whole_and_in_order() {
    for watch in modes() {
        let (_dir, p) = setup();
        File::create(&p).unwrap();
        let mut f = Follower::with_watch(&p, Start::Beginning, watch);
        // every third line with an unknown field (which only the full parse
        // keeps): the full parse and the fast path interleave and must keep
        // one order
        let text: String = (1..=200_000)
            .map(|i| {
                let line = ev(&format!("b{i}"), i % 7);
                if i % 3 == 0 {
                    line.replacen("\"type\":\"step\",", "\"x\":1,\"type\":\"step\",", 1)
                } else {
                    line
                }
            })
            .collect();
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || append(&p).write_all(text.as_bytes()).unwrap())
        };
        let until = Instant::now() + PATIENCE;
        let mut next = 1u64;
        while next <= 200_000 {
            assert!(Instant::now() < until, "stuck at line {next}");
            for e in f.next_batch(Some(Duration::from_millis(200))) {
                match e {
                    TailEvent::Line(l) => {
                        assert_eq!(l.lineno, next, "{watch:?}");
                        assert_eq!(l.event().name, format!("b{next}"));
                        assert_eq!(l.is_compact(), !next.is_multiple_of(3), "line {next}");
                        assert!(l.issues.is_empty());
                        next += 1;
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
        writer.join().unwrap();
        assert_quiet(&mut f);
    }
}

#[test]
fn truncation_and_rewrite_in_place_restart_from_the_top() {
    for watch in modes() {
        let (_dir, p) = setup();
        let mut rng = seeded();
        let (go, ready) = mpsc::channel::<()>();
        File::create(&p).unwrap();
        let mut f = Follower::with_watch(&p, Start::Beginning, watch);
        let writer = {
            let p = p.clone();
            let mut rng = fastrand::Rng::with_seed(rng.u64(..));
            std::thread::spawn(move || {
                let mut w = append(&p);
                write_cut(&mut w, &lines("a", 200, &mut rng), &mut rng);
                ready.recv().unwrap();
                // shrink: `> timeline.jsonl`, then a shorter history
                w.set_len(0).unwrap();
                write_cut(&mut w, &lines("b", 30, &mut rng), &mut rng);
                ready.recv().unwrap();
                // rewrite in place without shrinking: same bytes count, other first line
                let now = std::fs::read(&p).unwrap();
                let same_size = String::from_utf8(now.clone())
                    .unwrap()
                    .replace("\"b", "\"c");
                assert_eq!(same_size.len(), now.len());
                let mut over = OpenOptions::new().write(true).open(&p).unwrap();
                over.write_all(same_size.as_bytes()).unwrap();
                ready.recv().unwrap();
                // then grow again from where the rewrite ended
                write_cut(&mut w, &ev("c31", 3), &mut rng);
            })
        };
        let first = collect(&mut f, 200);
        assert_eq!(
            first.iter().map(show).collect::<Vec<_>>(),
            expect_lines("a", 1..=200, 1)
        );
        go.send(()).unwrap();
        let second = collect(&mut f, 31);
        let mut want = vec!["Truncated".to_string()];
        want.extend(expect_lines("b", 1..=30, 1));
        assert_eq!(
            second.iter().map(show).collect::<Vec<_>>(),
            want,
            "{watch:?}"
        );
        go.send(()).unwrap();
        // the rewrite is one write(2) of several pages: a read may land in its
        // middle (the start new, the end old); the end landing is a rewrite again,
        // read from the top, so the last version read is the whole new one
        let mut want = vec!["Truncated".to_string()];
        want.extend(expect_lines("c", 1..=30, 1));
        let third = collect_until_ends_with(&mut f, &want);
        assert_eq!(
            third.first().map(String::as_str),
            Some("Truncated"),
            "{watch:?}"
        );
        assert!(third.len() <= 2 * want.len(), "{watch:?}: {third:?}");
        go.send(()).unwrap();
        assert_eq!(show(&collect(&mut f, 1)[0]), "L31:c31");
        writer.join().unwrap();
        assert_quiet(&mut f);
    }
}

#[test]
fn replacement_by_rename_drains_the_old_file_then_follows_the_new() {
    for watch in modes() {
        let (dir, p) = setup();
        let mut rng = seeded();
        let (go, ready) = mpsc::channel::<()>();
        File::create(&p).unwrap();
        let mut f = Follower::with_watch(&p, Start::Beginning, watch);
        let writer = {
            let p = p.clone();
            let tmp = dir.path().join(".timeline.jsonl.tmp");
            let mut rng = fastrand::Rng::with_seed(rng.u64(..));
            std::thread::spawn(move || {
                let mut w = append(&p);
                write_cut(&mut w, &lines("a", 100, &mut rng), &mut rng);
                ready.recv().unwrap();
                // more lines and a half line, then at once the atomic-write pattern
                w.write_all(ev("a101", 1).as_bytes()).unwrap();
                w.write_all(b"{\"type\":\"run\",\"name\":\"a-tail\"}")
                    .unwrap();
                std::fs::write(&tmp, lines("n", 40, &mut rng)).unwrap();
                std::fs::rename(&tmp, &p).unwrap();
                ready.recv().unwrap();
                // the new file grows as usual
                write_cut(&mut append(&p), &lines("m", 5, &mut rng), &mut rng);
            })
        };
        let first = collect(&mut f, 100);
        assert_eq!(
            first.iter().map(show).collect::<Vec<_>>(),
            expect_lines("a", 1..=100, 1)
        );
        go.send(()).unwrap();
        let second = collect(&mut f, 43);
        let mut want = vec![
            "L101:a101".to_string(),
            "I102:a-tail".into(),
            "Replaced".into(),
        ];
        want.extend(expect_lines("n", 1..=40, 1));
        assert_eq!(
            second.iter().map(show).collect::<Vec<_>>(),
            want,
            "{watch:?}"
        );
        go.send(()).unwrap();
        let third = collect(&mut f, 5);
        assert_eq!(
            third.iter().map(show).collect::<Vec<_>>(),
            expect_lines("m", 1..=5, 41)
        );
        writer.join().unwrap();
        assert_quiet(&mut f);
    }
}

#[test]
fn late_creation_by_a_process_even_of_the_folder() {
    for watch in modes() {
        let dir = crate::common::fs::scratch_dir();
        // the runner makes the run folder itself, after following has begun
        let p = dir
            .path()
            .join("logs/ai/backend/case/20260315-101530-112/timeline.jsonl");
        let mut f = Follower::with_watch(&p, Start::LastN(10), watch);
        assert!(!f.is_open());
        assert_quiet(&mut f);
        let script = r#"
            sleep 0.1
            mkdir -p "$(dirname "$1")"
            printf '{"type":"run","name":"r1","status":"info"}\n{"type":"step",' > "$1"
            sleep 0.05
            printf '"name":"s2","status":"ok"}\n' >> "$1"
            i=3
            while [ $i -le 40 ]; do printf '{"type":"step","name":"s%d","status":"ok"}\n' $i; i=$((i+1)); done >> "$1"
        "#;
        let mut child = std::process::Command::new("sh")
            .args(["-c", script, "sh"])
            .arg(&p)
            .spawn()
            .unwrap();
        let got = collect(&mut f, 41);
        assert!(child.wait().unwrap().success());
        let mut want = vec!["Created".to_string(), "L1:r1".into()];
        want.extend(expect_lines("s", 2..=40, 2));
        assert_eq!(got.iter().map(show).collect::<Vec<_>>(), want, "{watch:?}");
        assert_quiet(&mut f);
    }
}

#[test]
fn deletion_is_said_and_the_file_awaited_again() {
    for watch in modes() {
        let (_dir, p) = setup();
        let mut rng = seeded();
        std::fs::write(&p, lines("a", 20, &mut rng)).unwrap();
        let mut f = Follower::with_watch(&p, Start::LastN(5), watch);
        let first = collect(&mut f, 5);
        assert_eq!(
            first.iter().map(show).collect::<Vec<_>>(),
            expect_lines("a", 16..=20, 16)
        );
        append(&p).write_all(b"{\"name\":\"gone-half\"}").unwrap();
        std::fs::remove_file(&p).unwrap();
        let second = collect(&mut f, 2);
        assert_eq!(
            second.iter().map(show).collect::<Vec<_>>(),
            ["I21:gone-half", "Deleted"]
        );
        assert!(!f.is_open());
        assert_quiet(&mut f);
        let writer = {
            let p = p.clone();
            let mut rng = fastrand::Rng::with_seed(rng.u64(..));
            std::thread::spawn(move || {
                write_cut(&mut append(&p), &lines("b", 50, &mut rng), &mut rng);
            })
        };
        let third = collect(&mut f, 51);
        writer.join().unwrap();
        let mut want = vec!["Created".to_string()];
        want.extend(expect_lines("b", 1..=50, 1));
        assert_eq!(
            third.iter().map(show).collect::<Vec<_>>(),
            want,
            "{watch:?}"
        );
        assert_quiet(&mut f);
    }
}

#[test]
fn bad_lines_are_reported_with_their_number_and_kept() {
    let (_dir, p) = setup();
    File::create(&p).unwrap();
    let mut f = Follower::with_watch(&p, Start::Beginning, Watch::Auto);
    let mut w = append(&p);
    w.write_all(b"{\"type\":\"step\",\"name\":\"ok1\",\"status\":\"ok\"}\nnot json at all\n[1,2]\n{\"type\":\"step\",\"name\":7,\"status\":\"ok\"}\n{\"type\":\"run\",\"message\":\"caf\xe9\"}\n\n{\"type\":\"weird\",\"name\":\"ok2\",\"status\":\"done\"}\n").unwrap();
    let got = collect(&mut f, 6);
    let summary: Vec<(u64, String, Vec<&str>)> = got
        .iter()
        .map(|e| {
            let TailEvent::Line(l) = e else {
                panic!("{e:?}")
            };
            (
                l.lineno,
                l.event().name.clone(),
                l.issues.iter().map(|i| i.rule).collect(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (1, "ok1".into(), vec![]),
            (2, String::new(), vec!["timeline-not-json"]),
            (3, String::new(), vec!["timeline-not-object"]),
            (4, "7".into(), vec!["timeline-wrong-type"]),
            (5, String::new(), vec!["timeline-not-utf8"]),
            (
                7,
                "ok2".into(),
                vec!["timeline-bad-type", "timeline-bad-status"]
            ),
        ]
    );
    let TailEvent::Line(l) = &got[1] else {
        unreachable!()
    };
    assert_eq!(l.event().message, "not json at all");
}

#[test]
fn spawned_follower_delivers_batches_and_finish_flushes_the_half_line() {
    let (_dir, p) = setup();
    let (tx, rx) = mpsc::channel::<Vec<TailEvent>>();
    let handle: TailHandle = spawn(&p, Start::Beginning, Watch::Auto, move |b| {
        tx.send(b).is_ok()
    })
    .unwrap();
    let mut w = append(&p);
    w.write_all(ev("one", 0).as_bytes()).unwrap();
    w.write_all(b"{\"type\":\"run\",\"name\":\"last\"}")
        .unwrap();
    let first = rx.recv_timeout(PATIENCE).unwrap();
    let mut seen: Vec<String> = first.iter().map(show).collect();
    while seen.len() < 2 {
        seen.extend(rx.recv_timeout(PATIENCE).unwrap().iter().map(show));
    }
    assert_eq!(seen, ["Created", "L1:one"]);
    handle.finish();
    let rest: Vec<String> = rx.try_iter().flatten().map(|e| show(&e)).collect();
    assert_eq!(rest, ["I2:last"]);
    // the thread is gone: its sender was dropped
    assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
}

#[test]
fn dropping_the_handle_stops_the_thread() {
    let (_dir, p) = setup();
    let (tx, rx) = mpsc::channel::<Vec<TailEvent>>();
    let handle = spawn(&p, Start::End, Watch::Auto, move |b| tx.send(b).is_ok()).unwrap();
    drop(handle);
    assert!(matches!(
        rx.recv_timeout(PATIENCE),
        Err(mpsc::RecvTimeoutError::Disconnected)
    ));
}
