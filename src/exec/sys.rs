//! The few POSIX calls the standard library lacks: signalling and reaping a
//! process group, and becoming the reaper of orphaned descendants.

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

/// Whether any process of group `pgid` is still alive (zombies of the group
/// that are our children are reaped first, so they do not count). Call it only
/// after the group leader has been waited for.
pub fn group_alive(pgid: u32) -> bool {
    reap_group(pgid);
    signal_group(pgid, 0)
}

/// Reap, without blocking, every exited child of ours in group `pgid` (the
/// descendants re-parented to us as their subreaper).
#[allow(unsafe_code)]
pub fn reap_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: waitpid(2) writes only into `status`, a live local; WNOHANG
        // never blocks; -pgid restricts it to children in that group, so it
        // never steals the status of a child std::process still waits for
        // (the group leader is always waited for before this is called).
        let rc = unsafe { libc::waitpid(-pgid, &raw mut status, libc::WNOHANG) };
        if rc <= 0 {
            return;
        }
    }
}

/// Make this process the reaper of its orphaned descendants (Linux), so that a
/// grandchild left behind by a case comes back to us, is killed with its group
/// and reaped, and never lingers as a zombie where init does not reap.
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

/// Make the child that `cmd` starts get SIGKILL when the thread that started it
/// ends (Linux `PR_SET_PDEATHSIG`), so a case's leader dies with testdeck even
/// when testdeck is SIGKILLed; the rest of its group is the guardian's
/// ([`super::guard`]). The launch thread waits for its child to the end, so the
/// signal only comes when testdeck itself is gone.
#[allow(unsafe_code)]
pub fn die_with_parent(cmd: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the forked child before exec and calls only
        // prctl(2) and getppid(2), which are async-signal-safe, take integers and
        // touch no memory of ours; it allocates nothing and takes no lock.
        unsafe {
            let parent = libc::getpid();
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                // the parent died between fork and prctl: die now, as it would
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
}

pub const SIGTERM: i32 = libc::SIGTERM;
pub const SIGKILL: i32 = libc::SIGKILL;
