//! The guardian: a tiny watchdog process that SIGKILLs every process of the
//! cases still running when testdeck dies, even by SIGKILL (which no handler sees).
//!
//! At the first launch testdeck starts `sh` with a script (below) in a session of
//! its own, its stdin the read end of a pipe whose write end only testdeck holds
//! (std opens it close-on-exec, so no case inherits it). Nothing is written to a
//! file: testdeck tells the guardian what to watch through that pipe, one line
//! each: `+t<token>` / `-t<token>` when a case (its random environment token, see
//! [`super::sweep`]) starts and ends, `+g<pgid>` / `-g<pgid>` for its process
//! group, `+p<token>:<pid>:<start>` for a process of it found without the token
//! (dropped with its token). When testdeck exits for any reason the kernel
//! closes the pipe, `read` sees end of file, and the guardian kills each group it
//! still holds (only groups it was given, only numbers above 1), each pid it
//! holds whose start time is still the one given, then every process whose
//! environment carries a token it still holds (so a case's escapers in other
//! sessions die too), and exits.

use std::io::Write as _;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The guardian's script. It ignores the terminal's signals (it has its own
/// session anyway) so that only the end of testdeck ends it. Lines that are not
/// exactly one of the four forms are ignored.
const SCRIPT: &str = r#"trap '' INT TERM HUP QUIT PIPE
toks=''
grps=''
pids=''
drop() { n=''; for x in $1; do [ "$x" = "$2" ] || n="$n $x"; done; echo "$n"; }
while IFS= read -r l; do
  v=${l#??}
  case $l in
    +t*) case $v in ''|*[!0-9a-f]*) ;; *) toks="$toks $v" ;; esac ;;
    -t*) toks=$(drop "$toks" "$v")
         n=''; for x in $pids; do case $x in "$v":*) ;; *) n="$n $x" ;; esac; done; pids=$n ;;
    +p*) case $v in *[!0-9a-f:]*) ;; *) pids="$pids $v" ;; esac ;;
    +g*) case $v in ''|0*|*[!0-9]*) ;; *) [ ${#v} -lt 10 ] && [ "$v" -gt 1 ] && grps="$grps $v" ;; esac ;;
    -g*) grps=$(drop "$grps" "$v") ;;
  esac
done
for g in $grps; do kill -9 -"$g" 2>/dev/null; done
for x in $pids; do
  p=${x#*:}; s=${p#*:}; p=${p%%:*}
  case $p in ''|0*|*[!0-9]*) continue ;; esac
  [ ${#p} -lt 10 ] && [ "$p" -gt 1 ] || continue
  st=$(cat "/proc/$p/stat" 2>/dev/null) || continue
  st=${st##*) }
  set -- $st
  [ "${20}" = "$s" ] && kill -9 "$p" 2>/dev/null
done
i=0
while [ -n "$toks" ] && [ $i -lt 20 ]; do
  found=''
  for t in $toks; do
    for f in $(grep -l -a -F "TESTDECK_CASE_TOKEN=$t" /proc/[0-9]*/environ 2>/dev/null); do
      p=${f#/proc/}; p=${p%/environ}
      case $p in ''|0*|*[!0-9]*) continue ;; esac
      [ "$p" -gt 1 ] && [ "$p" != "$$" ] && kill -9 "$p" 2>/dev/null && found=1
    done
  done
  [ -z "$found" ] && break
  i=$((i+1))
done
"#;

/// A running guardian: dropping it (or the end of testdeck) closes its pipe and
/// makes it sweep.
pub struct Guardian {
    child: Child,
    pipe: Option<ChildStdin>,
}

impl Guardian {
    /// Start a guardian (none when `sh` cannot be started: then the cases are
    /// covered only by the usual end-of-case sweep).
    pub fn start() -> Option<Self> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(SCRIPT)
            .arg("testdeck-guard")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // no terminal: a Ctrl-C or hangup meant for testdeck must not reach it
        super::sys::new_session(&mut cmd);
        let mut child = super::own_children::spawn_own(&mut cmd).ok()?;
        let pipe = child.stdin.take();
        Some(Self { child, pipe })
    }

    /// Send one line of the protocol (see the module). False when the guardian
    /// is gone.
    pub fn send(&mut self, line: &str) -> bool {
        let Some(p) = self.pipe.as_mut() else {
            return false;
        };
        let ok = p.write_all(format!("{line}\n").as_bytes()).is_ok();
        if !ok {
            self.pipe = None;
        }
        ok
    }

    /// The process id of the leader.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Close the pipe (as testdeck's death would) and wait for the sweep to end.
    pub fn finish(mut self) {
        drop(self.pipe.take());
        let _ = self.child.wait();
    }
}

static GUARDIAN: Mutex<Option<Guardian>> = Mutex::new(None);

fn tell(line: &str) {
    let Ok(mut g) = GUARDIAN.lock() else { return };
    if g.is_none() {
        *g = Guardian::start();
    }
    if let Some(guardian) = g.as_mut() {
        guardian.send(line);
    }
}

/// A case with this token starts: should testdeck die before
/// [`release_token`], the guardian kills every process carrying it.
pub(crate) fn watch_token(token: &str) {
    tell(&format!("+t{token}"));
}

pub(crate) fn release_token(token: &str) {
    tell(&format!("-t{token}"));
}

/// A process of the case with `token` that does not carry the token (its
/// environment was cleared): the guardian kills it by pid, only while that pid
/// still has this start time (so a reused pid is never signalled).
pub(crate) fn watch_pid(token: &str, pid: i32, start: u64) {
    tell(&format!("+p{token}:{pid}:{start}"));
}

/// Process group `pgid` was started (a case's leader).
pub(crate) fn watch_group(pgid: i32) {
    tell(&format!("+g{pgid}"));
}

/// Process group `pgid` is gone (nothing of it is left to kill).
pub(crate) fn release_group(pgid: i32) {
    tell(&format!("-g{pgid}"));
}
