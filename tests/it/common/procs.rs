//! Processes read from `/proc`: a test's view of what a testdeck process left running.

use std::collections::BTreeMap;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// One process of `/proc`: parent, state, start time (to tell a reused pid), name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub ppid: u32,
    pub state: char,
    pub start: u64,
    pub comm: String,
}

pub fn proc_of(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_owned();
    let rest: Vec<&str> = stat.get(close + 2..)?.split(' ').collect();
    Some(Proc {
        state: rest.first()?.chars().next()?,
        ppid: rest.get(1)?.parse().ok()?,
        start: rest.get(19)?.parse().ok()?,
        comm,
    })
}

/// Whether `pid` is a living process. A zombie (state Z) counts as dead: it runs
/// nothing, and in a container whose PID 1 does not reap it may stay.
pub fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // the state follows the command name, which is in parentheses
    let state = stat.rsplit_once(')').map(|(_, r)| r.trim_start());
    !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
}

/// The peak resident memory (VmHWM, KiB) `pid` has reached so far, while it lives.
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The peak resident memory (VmHWM, KiB) a child reached, sampled until it exits.
pub fn peak_rss_kib(mut cmd: Command) -> (Output, u64) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let mut peak = 0;
    // drain stdout on a thread so a full pipe never blocks the child
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut v);
        v
    });
    loop {
        if let Some(kib) = peak_kib(pid) {
            peak = peak.max(kib);
        }
        if child.try_wait().expect("try_wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let output = child.wait_with_output().expect("wait");
    let stdout = reader.join().expect("reader");
    (Output { stdout, ..output }, peak)
}

/// Whether `kill -0` reaches `pid`, a pid as a child wrote it down (text, maybe
/// with its newline); a zombie not yet reaped still answers.
pub fn signalable(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(Stdio::null())
        .status()
        .expect("kill")
        .success()
}

/// Every process whose parent chain includes `top`.
pub fn descendants(top: u32) -> BTreeMap<u32, Proc> {
    let all: BTreeMap<u32, Proc> = std::fs::read_dir("/proc")
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter_map(|pid| Some((pid, proc_of(pid)?)))
                .collect()
        })
        .unwrap_or_default();
    all.iter()
        .filter(|(pid, _)| {
            let mut at = **pid;
            for _ in 0..64 {
                match all.get(&at) {
                    Some(p) if p.ppid == top => return true,
                    Some(p) if p.ppid > 1 => at = p.ppid,
                    _ => return false,
                }
            }
            false
        })
        .map(|(pid, p)| (*pid, p.clone()))
        .collect()
}

/// The command line of `pid`, its arguments joined with spaces ("" when gone).
pub fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            String::from_utf8_lossy(&b)
                .split('\0')
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}
