//! Screenshot previews in the cockpit: the half-block downscaler on generated PNGs, the
//! artifacts pane and the `i` screen on the demo, and hostile images (a path out of the
//! run folder, truncated bytes, a huge declared size).

// d, t, p, w, h, x, y: the usual short names of test and pixel code
#![allow(clippy::many_single_char_names)]

use crate::common;
use common::fs::demo_copy as demo;

use common::app::{Deck, Runs, options, render};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use std::path::Path;
use testdeck_tui::action::Command;
use testdeck_tui::app::Screen;
use testdeck_tui::app::{Effect, Pane};
use testdeck_tui::feature_work::FeatureWork;
use testdeck_tui::image::{self, Rgb, State};
use testdeck_tui::theme::Theme;

const PLAN_CARD_CASE: &str = "ai/e2e/workbench/basic/workbench-plan-artifact-smoke";
const PLAN_CARD_RUN: &str =
    "tests/logs/ai/e2e/workbench/basic/workbench-plan-artifact-smoke/20261127-082157-975";

/// A PNG of `w`×`h` RGB pixels given by `at(x, y)`, encoded by the png crate.
fn png_of(w: u32, h: u32, at: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgb);
    e.set_depth(png::BitDepth::Eight);
    let mut wr = e.write_header().expect("header");
    let data: Vec<u8> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .flat_map(|(x, y)| at(x, y))
        .collect();
    wr.write_image_data(&data).expect("data");
    wr.finish().expect("finish");
    out
}

const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLUE: [u8; 3] = [0, 0, 255];
const WHITE: [u8; 3] = [255, 255, 255];

/// Quadrants: red top-left, green top-right, blue bottom-left, white bottom-right.
fn quadrants(x: u32, y: u32, half: u32) -> [u8; 3] {
    match (x < half, y < half) {
        (true, true) => RED,
        (false, true) => GREEN,
        (true, false) => BLUE,
        (false, false) => WHITE,
    }
}

fn rgb(p: [u8; 3]) -> Color {
    Color::Rgb(p[0], p[1], p[2])
}

#[test]
fn a_4x4_png_becomes_4x2_half_block_cells() {
    // rows 0..4 are red, green, blue, white stripes, with the first column black
    let stripes = [RED, GREEN, BLUE, WHITE];
    let bytes = png_of(4, 4, |x, y| {
        if x == 0 {
            [0, 0, 0]
        } else {
            stripes[y as usize]
        }
    });
    let p = image::decode(&bytes).expect("decodes");
    assert_eq!((p.width, p.height), (4, 4));
    let img = image::for_cells(&p.image, 80, 24);
    assert_eq!((img.width, img.height), (4, 4), "never scaled up");
    let cells = image::cells(&img);
    assert_eq!(cells.len(), 2, "two pixel rows per cell");
    let black = Color::Rgb(0, 0, 0);
    assert_eq!(cells[0][0], (black, black));
    assert_eq!(cells[0][1], (rgb(RED), rgb(GREEN)));
    assert_eq!(cells[1][3], (rgb(BLUE), rgb(WHITE)));
}

#[test]
fn the_downscaler_averages_boxes_and_keeps_the_aspect_ratio() {
    // 8x8 quadrants into 2 columns x 1 row: 2x2 pixels, one per quadrant
    let bytes = png_of(8, 8, |x, y| quadrants(x, y, 4));
    let p = image::decode(&bytes).expect("decodes");
    let img = image::for_cells(&p.image, 2, 1);
    assert_eq!((img.width, img.height), (2, 2));
    assert_eq!(
        image::cells(&img),
        vec![vec![(rgb(RED), rgb(BLUE)), (rgb(GREEN), rgb(WHITE))]]
    );
    // a 2x1 box over red and green averages them (rounded)
    let half = image::downscale(
        &Rgb {
            width: 2,
            height: 1,
            px: vec![RED, GREEN],
        },
        1,
        1,
    );
    assert_eq!(half.px, vec![[128, 128, 0]]);
    // wide picture in a tall area: the width limits, the ratio holds
    let wide = png_of(40, 10, |x, y| quadrants(x / 5, y, 5));
    let p = image::decode(&wide).expect("decodes");
    let img = image::for_cells(&p.image, 20, 20);
    assert_eq!((img.width, img.height), (20, 5));
    // an odd pixel height: the last cell row has no lower pixel
    let cells = image::cells(&img);
    assert_eq!(cells.len(), 3);
    assert_eq!(cells[2][0].1, Color::Reset);
}

/// CRC-32 of PNG chunks (the encoder of the png crate writes no interlaced images, so
/// the test builds one by hand).
fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for b in data {
        c ^= u32::from(*b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn chunk(out: &mut Vec<u8>, kind: [u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend(data);
    out.extend(&body);
    out.extend(crc32(&body).to_be_bytes());
}

/// An Adam7-interlaced 8-bit RGB PNG, its IDAT one stored (uncompressed) deflate block.
fn interlaced_png(w: u32, h: u32, at: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    const PASSES: [(u32, u32, u32, u32); 7] = [
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    ];
    let mut raw = Vec::new();
    for (x0, y0, dx, dy) in PASSES {
        if x0 >= w || y0 >= h {
            continue;
        }
        for y in (y0..h).step_by(dy as usize) {
            raw.push(0); // filter: none
            for x in (x0..w).step_by(dx as usize) {
                raw.extend(at(x, y));
            }
        }
    }
    let mut z = vec![0x78, 0x01, 0x01];
    let len = raw.len() as u16;
    z.extend(len.to_le_bytes());
    z.extend((!len).to_le_bytes());
    z.extend(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for x in &raw {
        a = (a + u32::from(*x)) % 65521;
        b = (b + a) % 65521;
    }
    z.extend(((b << 16) | a).to_be_bytes());
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 1]); // 8-bit, RGB, deflate, filter 0, Adam7
    chunk(&mut out, *b"IHDR", &ihdr);
    chunk(&mut out, *b"IDAT", &z);
    chunk(&mut out, *b"IEND", &[]);
    out
}

#[test]
fn an_interlaced_png_decodes_from_its_last_pass() {
    let bytes = interlaced_png(8, 8, |x, y| quadrants(x, y, 4));
    let p = image::decode(&bytes).expect("decodes");
    assert_eq!((p.width, p.height), (8, 8));
    let img = image::for_cells(&p.image, 2, 1);
    assert_eq!(
        image::cells(&img),
        vec![vec![(rgb(RED), rgb(BLUE)), (rgb(GREEN), rgb(WHITE))]]
    );
    // the odd rows carry the picture: a stripe on row 5 shows in its cell
    let bytes = interlaced_png(4, 8, |_, y| if y == 5 { RED } else { BLUE });
    let img = image::decode(&bytes).expect("decodes").image;
    assert_eq!(img.at(0, 5), RED);
    assert_eq!(img.at(0, 4), RED, "row 4 stands in for by row 5");
    assert_eq!(img.at(0, 3), BLUE);
}

#[test]
fn truncated_and_huge_pngs_give_messages() {
    let bytes = png_of(64, 64, |x, y| quadrants(x, y, 32));
    for cut in [0, 7, 20, 33, 50, bytes.len() / 2, bytes.len() - 13] {
        let e = image::decode(&bytes[..cut]).expect_err("truncated");
        assert!(!e.is_empty() && !e.contains('\n'), "one line: {e}");
    }
    // an IHDR that declares 100000x100000 and nothing else: refused from the header,
    // before the decoder runs (it would need 30 GB)
    let mut huge = bytes[..33].to_vec();
    huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let e = image::decode(&huge).expect_err("huge");
    assert!(
        e.contains("100000×100000") && e.contains("not decoded"),
        "{e}"
    );
    // a file over the size cap is not read
    let d = crate::common::fs::scratch_dir();
    let big = d.path().join("big.png");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(image::MAX_FILE + 1))
        .expect("sparse file");
    let e = image::load(&big, d.path(), "artifacts/big.png").expect_err("too big");
    assert!(e.starts_with("artifacts/big.png: over 16 MiB"), "{e}");
}

/// A full-page shot's size (3840×12969, Playwright at 3× scale): four bands top to
/// bottom, the left quarter fully transparent (its colour channels magenta), rows
/// streamed into the encoder so the test never holds the whole picture either.
fn full_page_png() -> Vec<u8> {
    banded_png(3840, 12969)
}

/// A `w`×`h` RGBA PNG: four horizontal bands (red, green, blue, white), the left
/// quarter fully transparent magenta.
fn banded_png(w: u32, h: u32) -> Vec<u8> {
    let bands = [RED, GREEN, BLUE, WHITE];
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgba);
    e.set_depth(png::BitDepth::Eight);
    e.set_compression(png::Compression::Fast);
    let mut wr = e.write_header().expect("header");
    {
        use std::io::Write as _;
        // the rows of a band are equal: each is built once (50 megapixels pushed one
        // by one took most of this test's time in an unoptimised test binary)
        let rows: Vec<Vec<u8>> = bands
            .iter()
            .map(|c| {
                let mut row = [255, 0, 255, 0].repeat((w / 4) as usize);
                row.extend([c[0], c[1], c[2], 255].repeat((w - w / 4) as usize));
                row
            })
            .collect();
        let mut st = wr.stream_writer().expect("stream");
        for y in 0..h {
            st.write_all(&rows[(y * 4 / h) as usize]).expect("row");
        }
        st.finish().expect("finish");
    }
    wr.finish().expect("end");
    out
}

#[test]
fn a_full_page_screenshot_is_streamed_downscaled_over_the_theme_background() {
    let bytes = full_page_png();
    let theme = Theme::builtin("dark", false).expect("dark");
    let bg = theme.background_rgb();
    assert_eq!(bg, [0x1e, 0x1e, 0x2e], "the dark theme's base");
    let p = image::decode_over(&bytes, bg).expect("previewed, not refused");
    assert_eq!((p.width, p.height), (3840, 12969));
    let img = &p.image;
    assert!(img.width <= image::CACHE_SIDE && img.height == image::CACHE_SIDE);
    // the bands in order, sampled in the middle of each (right of the transparent part)
    let x = img.width - 1;
    let seen: Vec<[u8; 3]> = (0..4)
        .map(|b| img.at(x, (2 * b + 1) * img.height / 8))
        .collect();
    assert_eq!(seen, vec![RED, GREEN, BLUE, WHITE]);
    // alpha 0 is the background, whatever the colour channels say
    for y in [0, img.height / 2, img.height - 1] {
        assert_eq!(img.at(0, y), bg, "row {y}");
    }
    // over black by default (the plain decode; a small picture of the same bands
    // shows it as well as the full page)
    assert_eq!(
        image::decode(&banded_png(64, 64))
            .expect("decodes")
            .image
            .at(0, 0),
        [0, 0, 0]
    );
}

// ---- the cockpit ----------------------------------------------------------------

/// The demo at `w`×`h`, loaded; run folders and finite jobs (the previews) run as the
/// runtime runs them.
fn loaded(root: &Path, w: u16, h: u16) -> Deck {
    Deck::new(options(root, "demo"), Runs::JOBS)
        .sized(w, h)
        .loaded()
}

/// The plan-card run's screenshot selected in the artifacts pane.
fn on_plan_card(root: &Path, w: u16, h: u16) -> Deck {
    let mut app = loaded(root, w, h);
    app.jump(PLAN_CARD_CASE);
    app.cmd(Command::Open);
    let run = app.live().run().expect("a run loaded");
    assert_eq!(run.path, PLAN_CARD_RUN);
    app.focus_on(Pane::Artifacts);
    app.key(KeyCode::Char('j'));
    assert_eq!(
        app.live().artifacts().cursor,
        1,
        "the screenshot is selected"
    );
    app
}

/// The half-block cells on screen: (x, y, fg, bg).
fn blocks(t: &Terminal<TestBackend>) -> Vec<(u16, u16, Color, Color)> {
    let b = t.backend().buffer();
    let mut out = Vec::new();
    for y in 0..b.area.height {
        for x in 0..b.area.width {
            let c = &b[(x, y)];
            if c.symbol() == "▀" {
                out.push((x, y, c.fg, c.bg));
            }
        }
    }
    out
}

#[test]
fn the_artifacts_pane_previews_the_plan_card() {
    let d = demo();
    let app = on_plan_card(d.path(), 140, 60);
    let file = d.path().join(PLAN_CARD_RUN).join("artifacts/plan-card.png");
    let Some(State::Ready(p)) = app.previews().cache().get(&file) else {
        panic!("no preview: {:?}", app.previews().cache().get(&file));
    };
    assert_eq!((p.width, p.height), (320, 200));
    let theme = Theme::builtin("dark", false).expect("dark");
    let t = render(&app, &theme);
    let cells = blocks(&t);
    assert!(
        cells.len() > 50,
        "a picture is drawn: {} cells",
        cells.len()
    );
    // the cells are the downscaled plan card, colour for colour
    let a = app.areas().panes.artifacts.expect("artifacts pane");
    let first = cells[0];
    let (cols, rows) = (
        cells.iter().filter(|c| c.1 == first.1).count() as u16,
        cells.iter().filter(|c| c.0 == first.0).count() as u16,
    );
    assert!(
        first.1 > a.y && first.1 + rows < a.y + a.height,
        "inside the pane"
    );
    let want = image::cells(&image::downscale(
        &p.image,
        u32::from(cols),
        u32::from(rows) * 2,
    ));
    for (x, y, fg, bg) in &cells {
        let (fx, fy) = ((x - first.0) as usize, (y - first.1) as usize);
        assert_eq!((*fg, *bg), want[fy][fx], "cell {x},{y}");
    }
    // the picture is not one flat colour
    let distinct: std::collections::HashSet<_> = cells.iter().map(|c| c.2).collect();
    assert!(distinct.len() > 3, "{distinct:?}");
    insta::assert_snapshot!(t.backend());
    // the text snapshot has no colours: these are the picture's, upper/lower per cell
    let hex = |c: &Color| match c {
        Color::Rgb(r, g, b) => format!("{r:02x}{g:02x}{b:02x}"),
        other => format!("{other:?}"),
    };
    let dump: Vec<String> = (0..rows)
        .map(|y| {
            cells
                .iter()
                .filter(|c| c.1 == first.1 + y)
                .map(|c| format!("{}/{}", hex(&c.2), hex(&c.3)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    insta::assert_snapshot!("plan_card_colours", dump.join("\n"));
}

#[test]
fn i_shows_the_screenshot_full_screen_and_esc_closes_it() {
    let d = demo();
    let mut app = on_plan_card(d.path(), 100, 40);
    app.key(KeyCode::Char('i'));
    assert!(matches!(app.layers().screen(), Some(Screen::Image { .. })));
    assert_eq!(app.mode(), "overlay");
    let theme = Theme::builtin("dark", false).expect("dark");
    let t = render(&app, &theme);
    let s = t.backend().to_string();
    assert!(s.contains("artifacts/plan-card.png · 320×200"), "{s}");
    let cells = blocks(&t);
    // 98x37 cells of room: the 320x200 card fits 98 columns (61 pixel rows, 31 cells)
    let cols = cells.iter().filter(|c| c.1 == cells[0].1).count();
    assert_eq!(cols, 98, "the full width is used");
    let rows = cells.iter().filter(|c| c.0 == cells[0].0).count();
    assert_eq!(rows, 31);
    insta::assert_snapshot!(t.backend());
    app.key(KeyCode::Esc);
    assert!(app.layers().screen().is_none());
    assert_eq!(app.mode(), "normal");
}

#[test]
fn no_color_shows_a_placeholder() {
    let d = demo();
    let app = on_plan_card(d.path(), 140, 60);
    let theme = Theme::builtin("dark", true).expect("dark");
    let t = render(&app, &theme);
    assert!(blocks(&t).is_empty(), "no half blocks without colour");
    let s = t.backend().to_string();
    assert!(
        s.contains("artifacts/plan-card.png · 320×200 · preview needs colour"),
        "{s}"
    );
}

#[test]
fn a_png_outside_the_run_folder_is_never_read() {
    let d = demo();
    let run = d.path().join(PLAN_CARD_RUN);
    // a real PNG just outside the run folder, named by artifacts.json
    std::fs::write(
        run.join("../x.png"),
        png_of(4, 4, |x, y| quadrants(x, y, 2)),
    )
    .expect("outside png");
    std::fs::write(
        run.join("artifacts.json"),
        r#"{"schemaVersion": 4, "items": [
            {"id": "t", "kind": "trace", "path": "artifacts/trace.zip", "refs": {}},
            {"id": "x", "kind": "screenshot", "path": "../x.png", "refs": {}}]}"#,
    )
    .expect("artifacts.json");
    let mut app = loaded(d.path(), 140, 60);
    assert!(app.jump_to(PLAN_CARD_CASE));
    app.cmd(Command::Open);
    app.focus_on(Pane::Artifacts);
    // every effect of selecting it: no decode job may be asked for
    let fx = app.on_key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    assert_eq!(app.live().artifacts().cursor, 1);
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Work(FeatureWork::Preview { .. }))),
        "{fx:?}"
    );
    assert!(app.previews().cache().get(&run.join("../x.png")).is_none());
    let theme = Theme::builtin("dark", false).expect("dark");
    let t = render(&app, &theme);
    assert!(blocks(&t).is_empty());
    let s = t.backend().to_string();
    assert!(
        s.contains("no preview: refused: ../x.png leaves the run folder"),
        "{s}"
    );
    // i refuses too
    app.key(KeyCode::Char('i'));
    assert!(app.layers().screen().is_none());
    assert_eq!(
        app.notice().as_deref(),
        Some("refused: ../x.png leaves the run folder")
    );
}

#[test]
fn a_broken_screenshot_shows_a_located_message() {
    let d = demo();
    let file = d.path().join(PLAN_CARD_RUN).join("artifacts/plan-card.png");
    let bytes = std::fs::read(&file).expect("card");
    std::fs::write(&file, &bytes[..bytes.len() / 2]).expect("truncate");
    let app = on_plan_card(d.path(), 140, 60);
    let Some(State::Failed(e)) = app.previews().cache().get(&file) else {
        panic!("no failure: {:?}", app.previews().cache().get(&file));
    };
    assert!(e.starts_with("artifacts/plan-card.png: broken PNG"), "{e}");
    let theme = Theme::builtin("dark", false).expect("dark");
    let s = render(&app, &theme).backend().to_string();
    assert!(s.contains("artifacts/plan-card.png: broken PNG"), "{s}");
}
