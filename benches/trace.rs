//! Figures for the trace reader (issue 25): a large synthetic Playwright trace
//! (test steps with API calls and call logs, DOM snapshot lines, console,
//! network rows and screencast JPEG frames, tens of MB) read from its file to
//! the action list, time and peak RSS of a process that does only that.
//!
//! `cargo bench --bench trace` (release). `TRACE_BENCH_STEPS` sets the test
//! steps (default 2000, ten API calls each). Prints figures; asserts nothing
//! about speed.
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Instant;
use testdeck_core::workspace::trace::Trace;
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

#[allow(dead_code)]
mod common;

/// The child's side: read the trace, print the figures as one line.
const READ_ENV: &str = "TRACE_BENCH_READ";

fn synthesize(path: &Path, steps: usize) {
    let mut z = ZipWriter::new(std::fs::File::create(path).unwrap());
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    let mut test = String::from(
        "{\"version\":10,\"type\":\"context-options\",\"origin\":\"testRunner\",\"playwrightVersion\":\"1.65.1\",\"monotonicTime\":0}\n",
    );
    let mut lib = String::from(
        "{\"version\":10,\"type\":\"context-options\",\"origin\":\"library\",\"browserName\":\"chromium\"}\n",
    );
    let mut net = String::new();
    let mut frames = Vec::new();
    let mut t = 0.0f64;
    let mut rng = fastrand::Rng::with_seed(25);
    // a DOM snapshot line of about 6 kB, varied so it compresses as real ones do
    let snapshot = |rng: &mut fastrand::Rng, id: &str| {
        let mut s =
            format!("{{\"type\":\"frame-snapshot\",\"snapshot\":{{\"callId\":\"{id}\",\"html\":[");
        for i in 0..120 {
            let _ = write!(
                s,
                "[\"DIV\",{{\"class\":\"row-{}\"}},\"item {i}\"],",
                rng.u32(..)
            );
        }
        s.push_str("\"end\"]}}\n");
        s
    };
    for step in 0..steps {
        let sid = format!("s@{step}");
        let _ = writeln!(
            test,
            "{{\"type\":\"before\",\"callId\":\"{sid}\",\"startTime\":{t},\"class\":\"Test\",\"method\":\"test.step\",\"title\":\"step {step}\",\"params\":{{}},\"stack\":[{{\"file\":\"/p/e2e/a.spec.ts\",\"line\":{},\"column\":3}}]}}",
            step + 1
        );
        for call in 0..10 {
            let cid = format!("c@{step}-{call}");
            let _ = writeln!(
                test,
                "{{\"type\":\"before\",\"callId\":\"{cid}\",\"parentId\":\"{sid}\",\"startTime\":{t},\"class\":\"Test\",\"method\":\"pw:api\",\"title\":\"Click\",\"subtitle\":\"getByRole('button', {{ name: 'Item {call}' }})\",\"params\":{{}},\"stack\":[{{\"file\":\"/p/e2e/a.spec.ts\",\"line\":{},\"column\":9}}]}}",
                step + 2
            );
            let _ = writeln!(
                lib,
                "{{\"type\":\"before\",\"callId\":\"{cid}\",\"startTime\":{t},\"class\":\"Frame\",\"method\":\"click\",\"params\":{{\"selector\":\"internal:role=button\"}}}}"
            );
            lib.push_str(&snapshot(&mut rng, &cid));
            for l in [
                "waiting for getByRole('button')",
                "  locator resolved",
                "  click action done",
            ] {
                let _ = writeln!(
                    lib,
                    "{{\"type\":\"log\",\"callId\":\"{cid}\",\"time\":{t},\"message\":\"{l}\"}}"
                );
            }
            let _ = writeln!(
                lib,
                "{{\"type\":\"console\",\"messageType\":\"log\",\"text\":\"clicked {step}-{call}\",\"time\":{t}}}"
            );
            let _ = writeln!(
                net,
                "{{\"type\":\"resource-snapshot\",\"snapshot\":{{\"time\":12.5,\"_monotonicTime\":{t},\"request\":{{\"method\":\"GET\",\"url\":\"http://127.0.0.1:4173/api/items/{step}/{call}\",\"headers\":[{{\"name\":\"Accept\",\"value\":\"*/*\"}}]}},\"response\":{{\"status\":200,\"content\":{{\"size\":512}}}}}}}}"
            );
            t += 7.5;
            let _ = writeln!(
                test,
                "{{\"type\":\"after\",\"callId\":\"{cid}\",\"endTime\":{t}}}"
            );
            let _ = writeln!(
                lib,
                "{{\"type\":\"after\",\"callId\":\"{cid}\",\"endTime\":{t}}}"
            );
        }
        // a screencast frame per step: a JPEG's bytes are incompressible
        let name = format!("screencast/page@1-{step}.jpeg");
        let _ = writeln!(
            lib,
            "{{\"type\":\"screencast-frame\",\"pageId\":\"page@1\",\"file\":\"{name}\",\"width\":1280,\"height\":720,\"timestamp\":{t}}}"
        );
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0];
        jpeg.extend((0..12_000).map(|_| rng.u8(..)));
        frames.push((name, jpeg));
        let _ = writeln!(
            test,
            "{{\"type\":\"after\",\"callId\":\"{sid}\",\"endTime\":{t}}}"
        );
    }
    for (name, text) in [
        ("test.trace", &test),
        ("0-trace.trace", &lib),
        ("0-trace.network", &net),
    ] {
        z.start_file(name, deflated).unwrap();
        z.write_all(text.as_bytes()).unwrap();
    }
    for (name, jpeg) in &frames {
        z.start_file(name.as_str(), stored).unwrap();
        z.write_all(jpeg).unwrap();
    }
    z.finish().unwrap();
    println!(
        "synthesized: {steps} steps, {} actions, {} frames; uncompressed JSON Lines {:.1} MB",
        steps * 11,
        frames.len(),
        (test.len() + lib.len() + net.len()) as f64 / 1e6
    );
}

/// In the child: read, count, print `ms actions frames vmhwm_kb`.
fn read_child(path: &Path) {
    let hwm0 = common::vm_hwm_kb(None).unwrap_or(0);
    let t0 = Instant::now();
    let t = Trace::read(path, None, "trace.zip").unwrap();
    let first = t.actions.first().map(|a| a.title.clone());
    let parse = t0.elapsed();
    let failed_frame = t
        .frame_bytes_near(t.actions.last().map_or(0.0, |a| a.start_ms))
        .map(Result::unwrap);
    let frame = t0.elapsed();
    println!(
        "{} {} {} {} {} {} {}",
        common::ms(parse),
        common::ms(frame),
        t.actions.len(),
        t.frames.len(),
        hwm0,
        common::vm_hwm_kb(None).unwrap_or(0),
        u8::from(first.is_some() && failed_frame.is_some()),
    );
}

fn main() {
    if let Some(p) = std::env::var_os(READ_ENV) {
        read_child(Path::new(&p));
        return;
    }
    let steps = std::env::var("TRACE_BENCH_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("trace.zip");
    synthesize(&path, steps);
    let size = std::fs::metadata(&path).unwrap().len();
    println!("trace.zip: {:.1} MB", size as f64 / 1e6);
    let mut runs = Vec::new();
    for _ in 0..5 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env(READ_ENV, &path)
            .output()
            .unwrap();
        let line = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let f: Vec<f64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert!(f[6] > 0.5, "actions and a frame read: {line}");
        runs.push(f);
    }
    runs.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let m = &runs[runs.len() / 2];
    println!(
        "read to the action list: {:.0} ms (median of {}), + nearest frame bytes {:.1} ms; {} top-level actions, {} frames",
        m[0],
        runs.len(),
        m[1] - m[0],
        m[2],
        m[3]
    );
    println!(
        "peak RSS (VmHWM): {:.1} MB (process before reading: {:.1} MB)",
        m[5] / 1024.0,
        m[4] / 1024.0
    );
}
