//! The children this library waits for itself though they live in a session of
//! their own (case leaders, the guardian): the sweep never reaps them.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Children the standard library waits for that were started in a session of
/// their own (case leaders, the guardian): never reaped here.
static OWN: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Spawn `cmd` (started in a new session) as a child the standard library will
/// wait for: registered before any look at /proc can see it exit.
pub fn spawn_own(cmd: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    let mut own = OWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let child = cmd.spawn()?;
    if let Ok(pid) = i32::try_from(child.id()) {
        own.insert(pid);
    }
    Ok(child)
}

/// `pid` is a child of this process that something other than this library
/// started in a session of its own (a pseudo-terminal's shell, say): the sweep
/// leaves it to whoever waits for it. Register it as soon as it is spawned, and
/// call [`forget_own`] once it was waited for. A program that only launches
/// through this library never needs it.
pub fn keep_own(pid: u32) {
    if let (Ok(mut own), Ok(pid)) = (OWN.lock(), i32::try_from(pid)) {
        own.insert(pid);
    }
}

/// `pid`, spawned by [`spawn_own`] or kept by [`keep_own`], was waited for.
pub fn forget_own(pid: u32) {
    if let (Ok(mut own), Ok(pid)) = (OWN.lock(), i32::try_from(pid)) {
        own.remove(&pid);
    }
}

/// Run `f` on the registered children with the registry locked (nothing when a
/// panic poisoned it): no child can be spawned and registered meanwhile.
pub(crate) fn while_locked(f: impl FnOnce(&BTreeSet<i32>)) {
    if let Ok(own) = OWN.lock() {
        f(&own);
    }
}
