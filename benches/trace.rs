//! Figures for the trace reader and the trace pane (issue 25): a large synthetic
//! Playwright trace (test steps with API calls and call logs, DOM snapshot
//! lines, console, network rows and screencast JPEG frames, tens of MB) read
//! from its file to the action list, time and peak RSS of a process that does
//! only that; then, in another process, the trace pane from Enter (the pane
//! shown, its read asked for) to the first drawn action row and to the first
//! screencast frame drawn, rendered into a `TestBackend`.
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
/// The child's side of the pane figures.
const PANE_ENV: &str = "TRACE_BENCH_PANE";

/// One screencast frame: a real 800×450 JPEG (what Playwright writes), the
/// same bytes for every frame.
fn frame_jpeg() -> Vec<u8> {
    // a page: a light background, a header bar, a few blocks of content
    let img = image::RgbImage::from_fn(800, 450, |x, y| {
        let block = (y < 48)
            || ((100..700).contains(&x) && (90..130).contains(&y))
            || ((100..380).contains(&x) && (170..390).contains(&y))
            || ((420..700).contains(&x) && (170..260).contains(&y));
        let v = if block { 50 } else { 0 };
        image::Rgb([
            (240 - v - x / 40) as u8,
            (242 - v - y / 30) as u8,
            (248 - v) as u8,
        ])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
        .encode_image(&img)
        .unwrap();
    out
}

#[expect(
    clippy::too_many_lines,
    reason = "writes a synthetic trace in the order the real format has it"
)]
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
    let jpeg = frame_jpeg();
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
        frames.push((name, jpeg.clone()));
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
        "synthesized: {steps} steps, {} actions, {} frames of {:.1} kB; uncompressed JSON Lines {:.1} MB",
        steps * 11,
        frames.len(),
        jpeg.len() as f64 / 1e3,
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

/// In the child: the trace pane from Enter to its first drawn action row and
/// its first drawn frame, print `ms_action ms_frame vmhwm0_kb vmhwm_kb ok`.
fn pane_child(path: &Path) {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use testdeck_tui::app::Effect;
    use testdeck_tui::app::trace::TraceView;
    use testdeck_tui::feature_work::{FeatureResult, FeatureWork};
    use testdeck_tui::graphics::Graphics;
    use testdeck_tui::runtime::run_now;
    let dir = path.parent().unwrap();
    let size = (160u16, 48u16);
    let theme = testdeck_tui::theme::Theme::builtin("dark", false).unwrap();
    let graphics = Graphics::default();
    let mut term = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    let shown = |term: &Terminal<TestBackend>, what: &str| {
        let b = term.backend().buffer();
        b.content
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect::<String>()
            .contains(what)
    };
    let hwm0 = common::vm_hwm_kb(None).unwrap_or(0);
    let t0 = Instant::now();
    // Enter: the pane is shown, reading, and its read is asked for (the runtime
    // runs the job on a thread; here in line: the same work)
    let mut v = TraceView::new(path.to_path_buf(), "trace.zip".into());
    let job = FeatureWork::Trace {
        file: path.to_path_buf(),
        within: dir.to_path_buf(),
        label: "trace.zip".into(),
    };
    term.draw(|f| testdeck_tui::view::trace::draw(&v, (&graphics, dir), &theme, f))
        .unwrap();
    let Some(FeatureResult::Trace {
        file,
        trace,
        root_real,
    }) = run_now(job, dir)
    else {
        panic!("the trace job gives a trace result");
    };
    v.loaded(&file, trace, root_real);
    v.fit(size);
    term.draw(|f| testdeck_tui::view::trace::draw(&v, (&graphics, dir), &theme, f))
        .unwrap();
    let action = t0.elapsed();
    let drew_action = shown(&term, "✓ step 0");
    // the selected action's frames: decoded, then drawn (half blocks)
    for e in v.frame_jobs([0, 0, 0]) {
        if let Effect::Work(w) = e
            && let Some(FeatureResult::TraceFrame {
                file,
                entry,
                preview,
            }) = run_now(w, dir)
        {
            v.frame_done(&file, entry, preview);
        }
    }
    term.draw(|f| testdeck_tui::view::trace::draw(&v, (&graphics, dir), &theme, f))
        .unwrap();
    let frame = t0.elapsed();
    let drew_frame = shown(&term, "▀");
    println!(
        "{} {} {} {} {}",
        common::ms(action),
        common::ms(frame),
        hwm0,
        common::vm_hwm_kb(None).unwrap_or(0),
        u8::from(drew_action && drew_frame),
    );
}

fn main() {
    if let Some(p) = std::env::var_os(READ_ENV) {
        read_child(Path::new(&p));
        return;
    }
    if let Some(p) = std::env::var_os(PANE_ENV) {
        pane_child(Path::new(&p));
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
    let mut panes = Vec::new();
    for _ in 0..5 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env(PANE_ENV, &path)
            .output()
            .unwrap();
        let line = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let f: Vec<f64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert!(f[4] > 0.5, "an action row and a frame drawn: {line}");
        panes.push(f);
    }
    panes.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let m = &panes[panes.len() / 2];
    println!(
        "trace pane, Enter to the first drawn action: {:.0} ms (median of {}); to the first drawn frame: {:.0} ms",
        m[0],
        panes.len(),
        m[1]
    );
    println!(
        "trace pane peak RSS (VmHWM): {:.1} MB (process before Enter: {:.1} MB)",
        m[3] / 1024.0,
        m[2] / 1024.0
    );
}
