//! `testdeck tail`: print a `timeline.jsonl` (pretty or JSON Lines) and keep following it.

use super::{Ctx, EXIT_FOUND, EXIT_OK, EXIT_USAGE};
use rayon::prelude::*;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use testdeck_core::Problem;
use testdeck_core::sanitize::escape;
use testdeck_core::tail::{Follower, Line, Start, TailEvent, Watch, color_wanted};

/// How many events are shown first without `--from-start`, like `tail`.
const LAST_EVENTS: u64 = 10;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The timeline to print (with --follow it may not exist yet).
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Keep following: print events as they are appended; survive truncation,
    /// replacement by rename and deletion.
    #[arg(long, short = 'f')]
    pub(crate) follow: bool,
    /// Print every event from the first line (default: the last 10).
    #[arg(long)]
    pub(crate) from_start: bool,
    /// Each event as one compact JSON object a line, flushed as it is read.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, _ctx: &Ctx) -> ExitCode {
    let shown = args.path.display().to_string();
    // checked without blocking: a FIFO, device or folder is refused at once
    // (with --follow a missing file is waited for)
    match testdeck_core::workspace::read::open(&args.path, None) {
        Err(e) if !(args.follow && e.is_missing()) => {
            let p = Problem::error(&shown, &e.rule("timeline"), e.to_string());
            eprintln!("{p}");
            return ExitCode::from(EXIT_USAGE);
        }
        _ => {}
    }
    let start = if args.from_start {
        Start::Beginning
    } else {
        Start::LastN(LAST_EVENTS)
    };
    let watch = if args.follow { Watch::Auto } else { Watch::Off };
    let follower = Follower::with_watch(&args.path, start, watch);
    let mut out = Printer {
        json: args.json,
        color: !args.json && color_wanted(),
        file: shown,
        stdout: BufWriter::with_capacity(64 << 10, io::stdout().lock()),
        scratch: String::with_capacity(512),
        errors: false,
        unreadable: false,
    };
    if args.follow && !follower.is_open() {
        let _ = out.note("does not exist yet; waiting for it");
    }
    // Reading and printing overlap: the follower reads and parses the next batch
    // on its own thread while this one writes the last (a burst then flows like
    // `tail -F`'s). A few batches in flight at most, so memory stays bounded.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<TailEvent>>(BATCHES_IN_FLIGHT);
    let follow = args.follow;
    let reader = std::thread::Builder::new()
        .name("testdeck-tail-read".into())
        .spawn(move || {
            let mut follower = follower;
            if follow {
                while tx.send(follower.next_batch(None)).is_ok() {}
                return;
            }
            loop {
                let batch = follower.read_available();
                if batch.is_empty() {
                    break;
                }
                if tx.send(batch).is_err() {
                    return;
                }
            }
            let _ = tx.send(follower.finish());
        });
    if let Err(e) = reader {
        eprintln!("testdeck: cannot start reading: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    // a closed pipe (`| head`) ends the command quietly: that is not a failure;
    // the reader thread then ends with the process
    let result = rx.iter().try_for_each(|batch| out.batch(&batch));
    if let Err(e) = result {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("testdeck: writing output: {e}");
        }
        return ExitCode::from(EXIT_OK);
    }
    if out.unreadable {
        ExitCode::from(EXIT_USAGE)
    } else if out.errors {
        ExitCode::from(EXIT_FOUND)
    } else {
        ExitCode::from(EXIT_OK)
    }
}

struct Printer<W: Write> {
    json: bool,
    color: bool,
    file: String,
    stdout: W,
    scratch: String,
    /// A line could not be read as an event.
    errors: bool,
    unreadable: bool,
}

impl<W: Write> Printer<W> {
    /// Print a batch, then flush: nothing read is ever held back while the
    /// follower waits for more. Lines read together leave together (one write
    /// per 64 KiB), each whole: a reader never sees half a line.
    fn batch(&mut self, batch: &[TailEvent]) -> io::Result<()> {
        if self.json || batch.len() < 2 * RENDER_RUN {
            // JSON lines are mostly copied as they were written: no work to share
            for ev in batch {
                self.event(ev)?;
            }
            return self.stdout.flush();
        }
        // A burst of pretty lines: runs of clean lines are rendered on all cores,
        // then written in order; a run holding anything else goes one by one, so
        // each report still comes right after its line.
        let color = self.color;
        let rendered: Vec<Option<String>> = batch
            .par_chunks(RENDER_RUN)
            .map(|run| {
                let mut buf = String::with_capacity(run.len() * 160);
                for ev in run {
                    match ev {
                        TailEvent::Line(l) if l.issues.is_empty() => {
                            render(&mut buf, l, color);
                        }
                        _ => return None,
                    }
                }
                Some(buf)
            })
            .collect();
        for (run, done) in batch.chunks(RENDER_RUN).zip(rendered) {
            match done {
                Some(buf) => self.stdout.write_all(buf.as_bytes())?,
                None => {
                    for ev in run {
                        self.event(ev)?;
                    }
                }
            }
        }
        self.stdout.flush()
    }

    fn event(&mut self, ev: &TailEvent) -> io::Result<()> {
        match ev {
            TailEvent::Line(line) => self.line(line, false)?,
            TailEvent::Incomplete(line) => self.line(line, true)?,
            TailEvent::Created => self.note("created; following from its start")?,
            TailEvent::Truncated => self.note("truncated; following from its start")?,
            TailEvent::Replaced => self.note("replaced; following the new file from its start")?,
            TailEvent::Deleted => self.note("deleted; waiting for it to come back")?,
            TailEvent::Unreadable(msg) => {
                self.unreadable = true;
                self.note(&format!("cannot read: {msg}"))?;
            }
        }
        Ok(())
    }

    fn line(&mut self, line: &Line, incomplete: bool) -> io::Result<()> {
        let broken = line
            .issues
            .iter()
            .any(|i| matches!(i.rule, "timeline-not-json" | "timeline-not-object"));
        // JSON Lines carries events only; an unfinished fragment is not one
        if self.json && !(incomplete && broken) {
            line.write_json(&mut self.stdout)?;
            self.stdout.write_all(b"\n")?;
        } else if !self.json {
            self.scratch.clear();
            render(&mut self.scratch, line, self.color);
            self.stdout.write_all(self.scratch.as_bytes())?;
        }
        if incomplete || !line.issues.is_empty() {
            // keep the report next to its line when both go to one terminal
            self.stdout.flush()?;
        }
        if incomplete {
            let p = Problem::warning(
                &self.file,
                "timeline-incomplete-line",
                "the last line has no newline (the writer may not be done)",
            )
            .at_line(line.lineno as u32);
            eprintln!("{p}");
        }
        for issue in &line.issues {
            let mut p = Problem::error(&self.file, issue.rule, issue.message.clone())
                .at_line(line.lineno as u32);
            p.column = issue.column;
            p.severity = issue.severity();
            self.errors |= p.is_error();
            eprintln!("{p}");
        }
        Ok(())
    }

    fn note(&mut self, what: &str) -> io::Result<()> {
        // what was printed before the change comes first
        self.stdout.flush()?;
        eprintln!("testdeck: {}: {what}", escape(&self.file));
        Ok(())
    }
}

/// Batches read ahead of the one being printed.
const BATCHES_IN_FLIGHT: usize = 2;

/// Lines rendered together in a burst.
const RENDER_RUN: usize = 256;

/// One pretty output line (escaped).
fn render(buf: &mut String, line: &Line, color: bool) {
    line.write_pretty(color, buf);
    buf.push('\n');
}
