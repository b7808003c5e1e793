//! The library as a test binary uses it (issue 12, finding 2): after a case that
//! leaves escapers in other sessions and groups, none survives and none is left
//! as a zombie child of this process — and the case's own exit status is still
//! the standard library's to read. Alone in its binary, so no other test's
//! children are counted.

use std::time::{Duration, Instant};
use testdeck_exec::process::{self, Cancel, Program, Spec};

/// (pid, zombie) of every child of this process.
fn children() -> Vec<(u32, bool)> {
    let me = std::process::id();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").expect("proc").flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(me) {
            out.push((pid, f.first() == Some(&"Z")));
        }
    }
    out
}

#[test]
fn escapers_die_and_no_zombie_is_left() {
    let script = "setsid sh -c 'sleep 300' &\n\
                  ( setsid sh -c 'sleep 300 & sleep 300' & ) &\n\
                  sh -c 'trap \"\" TERM HUP; sleep 300' &\n\
                  ( setsid sh -c 'exit 0' & ) &\n\
                  env -i setsid sh -c 'sleep 300' &\n\
                  sleep 1; exit 7\n";
    let spec = Spec {
        program: Program::Shell(script.into()),
        cwd: std::env::temp_dir(),
        env: Vec::new(),
        timeout: None,
        log: None,
    };
    let o = process::run(&spec, &Cancel::default(), &mut |_, _| {});
    // the leader's status was not stolen by the reaping
    assert_eq!(o.exit_code, Some(7), "{o:?}");
    // only the guardian (a living sh) may remain a child of ours
    let start = Instant::now();
    let mut left = children();
    while left.len() > 1 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
        left = children();
    }
    assert!(left.iter().all(|(_, z)| !z), "zombies: {left:?}");
    assert!(left.len() <= 1, "children left: {left:?}");
}
