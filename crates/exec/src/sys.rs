//! The few POSIX calls the standard library lacks (through rustix's safe calls): a new
//! session for a case, signalling and reaping single processes and groups, and becoming
//! the reaper of orphaned descendants.

use rustix::process::{Pid, Signal, WaitOptions};

/// `sig` as rustix's named signal; `None` for a number that names none.
fn named(sig: i32) -> Option<Signal> {
    Signal::from_named_raw(sig)
}

/// Send `sig` to every process of group `pgid`. Returns false when the group no
/// longer exists (ESRCH), true otherwise.
pub fn signal_group(pgid: u32, sig: i32) -> bool {
    let Ok(raw) = i32::try_from(pgid) else {
        return false;
    };
    if raw <= 1 {
        // never signal "every process" (-1) or our own group (0)
        return false;
    }
    let (Some(pgid), Some(sig)) = (Pid::from_raw(raw), named(sig)) else {
        return false;
    };
    match rustix::process::kill_process_group(pgid, sig) {
        Ok(()) => true,
        Err(e) => e != rustix::io::Errno::SRCH,
    }
}

/// Send `sig` to the one process `pid` (never to a group, never to init, never
/// to ourselves). Returns whether it was sent.
pub(crate) fn signal_pid(pid: i32, sig: i32) -> bool {
    if pid <= 1 || pid == std::process::id() as i32 {
        return false;
    }
    let (Some(pid), Some(sig)) = (Pid::from_raw(pid), named(sig)) else {
        return false;
    };
    rustix::process::kill_process(pid, sig).is_ok()
}

/// Reap `pid` if it is an exited child of ours, without blocking. Call it only
/// for a descendant that the standard library did not start (an orphan handed
/// to us as its subreaper), so no `Child::wait` loses its status.
pub(crate) fn reap_pid(pid: i32) -> bool {
    if pid <= 1 {
        return false;
    }
    let Some(p) = Pid::from_raw(pid) else {
        return false;
    };
    matches!(
        rustix::process::waitpid(Some(p), WaitOptions::NOHANG),
        Ok(Some((reaped, _))) if reaped == p
    )
}

/// Make this process the reaper of its orphaned descendants (Linux), so that a
/// grandchild left behind by a case comes back to us, is found, killed and
/// reaped, and never lingers as a zombie where init does not reap.
pub(crate) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        // any Some turns the flag on; failure is harmless (ignored)
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
}

/// Start the child of `cmd` in a new session (`setsid`): it has no controlling
/// terminal, so neither it nor its descendants can open `/dev/tty`, read the
/// person's keys or write to their screen, and it leads a process group of its
/// own (pgid = its pid). It also gets SIGKILL when the thread that started it
/// ends (Linux `PR_SET_PDEATHSIG`), so a case's leader dies with testdeck even
/// when testdeck is SIGKILLed; the rest is the guardian's ([`super::guard`]).
/// The launch thread waits for its child to the end, so that signal only comes
/// when testdeck itself is gone.
#[allow(unsafe_code)]
pub(crate) fn case_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    // SAFETY: pre_exec is unsafe because the closure runs in the forked child
    // before exec; it calls only setsid(2), prctl(2), getppid(2) and _exit(2),
    // which are async-signal-safe, take integers and touch no memory of ours; it
    // allocates nothing and takes no lock. libc stays for _exit alone: rustix
    // has no stable safe `_exit` (std::process::exit runs atexit handlers, which
    // a forked child must not).
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::setsid()?;
            #[cfg(target_os = "linux")]
            {
                let _ = rustix::process::set_parent_process_death_signal(Some(Signal::KILL));
                // the parent died between fork and prctl: die now, as it would
                if rustix::process::getppid() != Some(parent) {
                    libc::_exit(1);
                }
            }
            let _ = parent;
            Ok(())
        });
    }
}

/// Start the child of `cmd` in a new session, and nothing else (the guardian:
/// it must outlive testdeck, and no terminal signal may reach it).
#[allow(unsafe_code)]
pub(crate) fn new_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: pre_exec is unsafe because the closure runs in the forked child
    // before exec; it calls only setsid(2), which is async-signal-safe and
    // touches no memory of ours.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            Ok(())
        });
    }
}

pub(crate) const SIGTERM: i32 = Signal::TERM.as_raw();
pub(crate) const SIGKILL: i32 = Signal::KILL.as_raw();
pub(crate) const SIGSTOP: i32 = Signal::STOP.as_raw();
pub(crate) const SIGCONT: i32 = Signal::CONT.as_raw();
