//! The few POSIX calls the standard library lacks: a new session for a case,
//! signalling and reaping single processes and groups, and becoming the reaper
//! of orphaned descendants.

/// Send `sig` to every process of group `pgid`. Returns false when the group no
/// longer exists (ESRCH), true otherwise.
#[allow(unsafe_code)]
pub fn signal_group(pgid: u32, sig: i32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    if pgid <= 1 {
        // never signal "every process" (-1) or our own group (0)
        return false;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a
    // negative pid addresses exactly the process group `pgid`.
    let rc = unsafe { libc::kill(-pgid, sig) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Send `sig` to the one process `pid` (never to a group, never to init, never
/// to ourselves). Returns whether it was sent.
#[allow(unsafe_code)]
pub fn signal_pid(pid: i32, sig: i32) -> bool {
    if pid <= 1 || pid == std::process::id() as i32 {
        return false;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a
    // positive pid addresses exactly that process.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// Reap `pid` if it is an exited child of ours, without blocking. Call it only
/// for a descendant that the standard library did not start (an orphan handed
/// to us as its subreaper), so no `Child::wait` loses its status.
#[allow(unsafe_code)]
pub fn reap_pid(pid: i32) -> bool {
    if pid <= 1 {
        return false;
    }
    let mut status: libc::c_int = 0;
    // SAFETY: waitpid(2) writes only into `status`, a live local; WNOHANG never
    // blocks; a positive pid waits for exactly that child.
    let rc = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
    rc == pid
}

/// Make this process the reaper of its orphaned descendants (Linux), so that a
/// grandchild left behind by a case comes back to us, is found, killed and
/// reaped, and never lingers as a zombie where init does not reap.
#[allow(unsafe_code)]
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) takes integers only and
        // changes a flag of this process; failure is harmless (ignored).
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
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
pub fn case_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and calls only
    // setsid(2), prctl(2), getppid(2) and _exit(2), which are async-signal-safe,
    // take integers and touch no memory of ours; it allocates nothing and takes
    // no lock.
    unsafe {
        let parent = libc::getpid();
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                // the parent died between fork and prctl: die now, as it would
                if libc::getppid() != parent {
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
pub fn new_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and calls only
    // setsid(2), which is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

pub const SIGTERM: i32 = libc::SIGTERM;
pub const SIGKILL: i32 = libc::SIGKILL;
