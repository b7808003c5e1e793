//! Finding every living descendant of a case through /proc, whatever session or
//! process group it moved to: by the case's random token in its environment, by
//! ancestry, by session and group; and ending the strays no running case owns.

use super::{own_children, sys};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

/// The environment variable that marks every process of a case with the case's
/// random token (read back from `/proc/<pid>/environ`).
pub(crate) const TOKEN_VAR: &str = "TESTDECK_CASE_TOKEN";

/// Tokens of the cases running now, and the orphans already found that no case
/// owned (kept to reap them once dead).
struct Registry {
    running: BTreeSet<String>,
    strays: BTreeMap<i32, u64>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    running: BTreeSet::new(),
    strays: BTreeMap::new(),
});

/// Reap the dead children handed to us from other sessions: orphans of cases
/// (every case and its descendants live outside our session) that ended before
/// any look saw them. Children the standard library waits for share our session,
/// or were started by [`own_children::spawn_own`], and are left alone.
fn reap_orphans(procs: &[(i32, Stat)]) {
    let me = std::process::id() as i32;
    let Some(mine) = stat(me) else { return };
    // the registry stays locked while reaping: a child spawned meanwhile is
    // registered before it can be seen here
    own_children::while_locked(|own| {
        for (pid, st) in procs {
            if st.zombie
                && st.ppid == me
                && st.sid != mine.sid
                && st.pgrp != mine.pgrp
                && !own.contains(pid)
            {
                sys::reap_pid(*pid);
            }
        }
    });
}

/// What /proc says of one process.
#[derive(Debug, Clone, Copy)]
struct Stat {
    zombie: bool,
    ppid: i32,
    pgrp: i32,
    sid: i32,
    /// Start time (clock ticks since boot): with the pid, names one process.
    start: u64,
}

/// A small /proc file whole: one open and a read or two into a stack buffer
/// (`fs::read` asks the size first and probes in small reads: a look at /proc
/// reads one file per process, several times a second while a case runs).
fn read_small(path: &str, buf: &mut [u8]) -> Option<usize> {
    use std::io::Read as _;
    let mut f = std::fs::File::open(path).ok()?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(n)
}

fn stat(pid: i32) -> Option<Stat> {
    // a stat line is a few hundred bytes (52 numbers and a name of at most 64)
    let mut buf = [0u8; 2048];
    let n = read_small(&format!("/proc/{pid}/stat"), &mut buf)?;
    let bytes = buf.get(..n)?;
    // the command name is in parentheses and may hold anything, bytes that are
    // not UTF-8 too (`prctl(PR_SET_NAME)`): read the numbers after the last
    let close = bytes.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(bytes.get(close + 1..)?).ok()?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let num = |i: usize| f.get(i).and_then(|s| s.parse::<i64>().ok());
    Some(Stat {
        zombie: matches!(f.first(), Some(&"Z" | &"X")),
        ppid: num(1)? as i32,
        pgrp: num(2)? as i32,
        sid: num(3)? as i32,
        start: num(19)? as u64,
    })
}

/// Every process but ourselves.
fn processes() -> Vec<(i32, Stat)> {
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&p| p != me)
        .filter_map(|p| Some((p, stat(p)?)))
        .collect()
}

/// The value of [`TOKEN_VAR`] in a process's environment (at its start).
fn token_of(pid: i32) -> Option<String> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let key = format!("{TOKEN_VAR}=");
    env.split(|&b| b == 0)
        .find_map(|kv| kv.strip_prefix(key.as_bytes()))
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// The token this process itself was started with (when testdeck runs inside a
/// case of another testdeck): never a stray of ours.
fn inherited() -> Option<&'static str> {
    static T: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    T.get_or_init(|| std::env::var(TOKEN_VAR).ok()).as_deref()
}

/// One case's processes: its token, its leader (the child the standard library
/// waits for) and every descendant seen so far.
#[derive(Debug)]
pub struct Case {
    token: String,
    leader: Option<i32>,
    /// The leader's start time: once it is reaped, its pid may name another process.
    leader_start: Option<u64>,
    /// pid → start time of every descendant seen (not the leader).
    seen: HashMap<i32, u64>,
}

/// What one look at /proc found of a case.
#[derive(Debug, Default)]
pub(crate) struct Members {
    /// Living processes of the case (the leader included while it lives).
    pub(crate) alive: Vec<i32>,
    /// Dead ones not reaped yet by their parent (not counting the leader).
    pub(crate) zombies: usize,
}

impl Case {
    /// A new case with a fresh random token, registered as running (and given to
    /// the guardian) until it is dropped.
    pub fn new() -> Self {
        let token = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
        if let Ok(mut r) = REGISTRY.lock() {
            r.running.insert(token.clone());
        }
        super::guard::watch_token(&token);
        Self {
            token,
            leader: None,
            leader_start: None,
            seen: HashMap::new(),
        }
    }

    /// The environment entry that marks the case's processes.
    pub fn env(&self) -> (String, String) {
        (TOKEN_VAR.to_owned(), self.token.clone())
    }

    /// The case's token (the value of `TESTDECK_CASE_TOKEN`).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The case's first process started (its own session and group).
    pub(crate) fn set_leader(&mut self, pid: u32) {
        self.leader = i32::try_from(pid).ok();
        self.leader_start = self.leader.and_then(stat).map(|s| s.start);
        if let Some(l) = self.leader {
            super::guard::watch_group(l);
        }
    }

    /// Look at /proc: which processes belong to the case now. Orphans of the
    /// case handed to us are reaped once dead; strays (carrying the token of no
    /// running case) are killed and reaped.
    pub(crate) fn members(&mut self) -> Members {
        let me = std::process::id() as i32;
        let procs = processes();
        let leader = self.leader.unwrap_or(-1);
        let mut member: HashSet<i32> = HashSet::new();
        let mut tokens: HashMap<i32, Option<String>> = HashMap::new();
        // a session or group led by a process of the case seen before is the
        // case's, its leader dead or not (a cleared environment and `setsid`,
        // then the parent gone: its children keep the session's number). The
        // kernel reuses no pid still naming a session or group; a pid reused
        // after it was freed names a process with another start time.
        let start_of: HashMap<i32, u64> = procs.iter().map(|(p, st)| (*p, st.start)).collect();
        let seen = &self.seen;
        let led_by_seen = |id: i32| {
            id > 1
                && seen
                    .get(&id)
                    .is_some_and(|s| start_of.get(&id).is_none_or(|now| now == s))
        };
        for (pid, st) in &procs {
            // a process older than the leader cannot carry the case's token (it
            // descends from the leader); the orphans handed to us are read for
            // the strays. Reading another process's environment is the costly
            // part of a look: most processes of a busy machine are skipped.
            let may_carry = st.ppid == me || self.leader_start.is_none_or(|s| st.start >= s);
            let t = if may_carry { token_of(*pid) } else { None };
            let mine = (*pid == leader && self.leader_start.is_none_or(|s| s == st.start))
                || (leader > 1 && (st.sid == leader || st.pgrp == leader))
                || led_by_seen(st.sid)
                || led_by_seen(st.pgrp)
                || self.seen.get(pid) == Some(&st.start)
                || t.as_deref() == Some(self.token.as_str());
            if mine {
                member.insert(*pid);
            }
            tokens.insert(*pid, t);
        }
        // whatever descends from a member is a member
        loop {
            let before = member.len();
            for (pid, st) in &procs {
                if member.contains(&st.ppid) {
                    member.insert(*pid);
                }
            }
            if member.len() == before {
                break;
            }
        }
        let mut out = Members::default();
        for (pid, st) in &procs {
            if !member.contains(pid) {
                continue;
            }
            if *pid != leader && self.seen.insert(*pid, st.start) != Some(st.start) {
                // found by ancestry, session or group only (its environment was
                // cleared): the guardian gets it by pid and start time
                let marked = tokens.get(pid).and_then(Option::as_deref) == Some(&self.token);
                if !marked && !st.zombie {
                    super::guard::watch_pid(&self.token, *pid, st.start);
                }
            }
            if st.zombie {
                if *pid == leader {
                    continue; // the standard library reaps it
                }
                if st.ppid == me && sys::reap_pid(*pid) {
                    continue;
                }
                out.zombies += 1;
            } else {
                out.alive.push(*pid);
            }
        }
        end_strays(me, &procs, &tokens);
        reap_orphans(&procs);
        out
    }

    /// Stop (SIGSTOP) every living process of the case, looking again until a
    /// look finds none not stopped yet: a stopped process forks nothing (a fork
    /// under way when the signal came is undone), and the children it made before
    /// keep it as their parent, so they are found by ancestry whatever session
    /// or environment they moved to. Then nothing of the case can slip away
    /// between a look and the signal that ends it. Returns the stopped ones;
    /// give them [`Case::resume`] after the ending signal.
    pub(crate) fn freeze(&mut self) -> Vec<i32> {
        const LOOKS: usize = 20;
        let mut stopped: Vec<i32> = Vec::new();
        let mut done: HashSet<i32> = HashSet::new();
        for _ in 0..LOOKS {
            let mut new = false;
            for p in self.members().alive {
                if done.insert(p) {
                    new = true;
                    if sys::signal_pid(p, sys::SIGSTOP) {
                        stopped.push(p);
                    }
                }
            }
            if !new {
                break;
            }
        }
        stopped
    }

    /// Let the processes [`Case::freeze`] stopped go on (to the signal sent
    /// them meanwhile).
    pub(crate) fn resume(stopped: &[i32]) {
        for &p in stopped {
            sys::signal_pid(p, sys::SIGCONT);
        }
    }

    /// Send `sig` to every living process of the case; returns how many there were.
    pub(crate) fn signal(&mut self, sig: i32) -> usize {
        let m = self.members();
        for &p in &m.alive {
            sys::signal_pid(p, sig);
        }
        m.alive.len()
    }
}

impl Default for Case {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // the supervising thread broke: nothing of the case may outlive it
            for _ in 0..50 {
                if self.signal(sys::SIGKILL) == 0 {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        if let Ok(mut r) = REGISTRY.lock() {
            r.running.remove(&self.token);
        }
        if let Some(l) = self.leader {
            super::guard::release_group(l);
        }
        super::guard::release_token(&self.token);
    }
}

/// Kill the orphans handed to us that carry a case token no running case owns
/// (their case ended, or they were never a case of ours), and reap them.
fn end_strays(me: i32, procs: &[(i32, Stat)], tokens: &HashMap<i32, Option<String>>) {
    let Ok(mut r) = REGISTRY.lock() else { return };
    for (pid, st) in procs {
        if st.ppid != me {
            continue;
        }
        if r.strays.get(pid) == Some(&st.start) {
            if st.zombie {
                sys::reap_pid(*pid);
                r.strays.remove(pid);
            } else {
                sys::signal_pid(*pid, sys::SIGKILL);
            }
            continue;
        }
        let Some(Some(t)) = tokens.get(pid) else {
            continue;
        };
        if r.running.contains(t) || inherited() == Some(t.as_str()) {
            continue;
        }
        r.strays.insert(*pid, st.start);
        sys::signal_pid(*pid, sys::SIGKILL);
    }
    r.strays.retain(|p, _| procs.iter().any(|(q, _)| q == p));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_our_own_stat() {
        let parent = stat(std::os::unix::process::parent_id() as i32).expect("parent stat");
        assert!(!parent.zombie);
        assert!(parent.start > 0);
    }

    #[test]
    fn a_process_whose_name_is_not_utf8_is_still_seen() {
        // the name is the process's own to set (/proc/self/comm, prctl)
        let mut child = std::process::Command::new("sh")
            .args(["-c", "printf '\\377) (\\376' > /proc/$$/comm; read -r x"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        let pid = child.id() as i32;
        let mut seen = None;
        for _ in 0..200 {
            let comm = std::fs::read(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.first() == Some(&0xff) {
                seen = stat(pid);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        drop(child.stdin.take()); // `read` ends, and the shell with it
        let _ = child.wait();
        let st = seen.expect("the renamed process is read");
        assert_eq!(st.ppid, std::process::id() as i32);
        assert!(!st.zombie);
    }

    #[test]
    fn tokens_are_unique_and_hex() {
        let (a, b) = (Case::new(), Case::new());
        assert_ne!(a.token(), b.token());
        assert_eq!(a.token().len(), 32);
        assert!(a.token().bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
