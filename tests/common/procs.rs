//! Processes read from `/proc`: a test's view of what a testdeck process left running.

use std::collections::BTreeMap;

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
