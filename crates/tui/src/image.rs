//! Screenshot previews: a bounded PNG decode done off the UI thread, a per-file cache of
//! the downscaled RGB, and the half-block cells (`▀`) that draw it in the terminal.
//!
//! The half blocks are not ratatui-image's: its encoder resizes with a triangle
//! filter that bleeds neighbouring areas into each other (a red quadrant of 8×8
//! quadrants shown in 2×1 cells came out 193,36,36, here 255,0,0) and took 20.7 ms
//! per 200×60-cell frame against 3.2 ms here. ratatui-image draws the picture
//! protocols (kitty, sixel, iTerm2: `graphics`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::widgets::Widget;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use testdeck_core::workspace::logs::Artifact;

/// A screenshot bigger than this is refused unread.
pub const MAX_FILE: u64 = testdeck_core::workspace::read::Kind::Image.cap();
/// Neither side may exceed this (one decoded row stays small). The pixel count has
/// no cap: rows stream into the downscaled copy, so memory is one row plus the copy.
pub(crate) const MAX_SIDE: u32 = 20_000;
/// The cached copy fits in this many pixels per side (a full-screen preview of a wide
/// terminal needs no more: one column is one pixel wide).
pub const CACHE_SIDE: u32 = 240;
/// Files whose previews are kept; past it the cache starts over.
const CACHE_ENTRIES: usize = 32;
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// A screencast frame (JPEG) bigger than this many pixels is refused before it is
/// decoded: its RGB copy would be 24 MiB (Playwright's frames are 800×800 at most).
pub const MAX_FRAME_PIXELS: u64 = 8 << 20;

/// An RGB picture, row after row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgb {
    pub width: u32,
    pub height: u32,
    pub px: Vec<[u8; 3]>,
}

impl Rgb {
    pub fn at(&self, x: u32, y: u32) -> [u8; 3] {
        self.px[(y * self.width + x) as usize]
    }
}

/// A decoded screenshot: its size as stored and a copy downscaled to `CACHE_SIDE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    pub width: u32,
    pub height: u32,
    pub image: Rgb,
}

/// Where a file's preview stands.
#[derive(Debug, Clone)]
pub enum State {
    /// Being decoded.
    Pending,
    Ready(Arc<Preview>),
    /// Why there is no preview (one line, located by the file's run-relative path).
    Failed(String),
}

/// The previews asked for, by absolute file.
#[derive(Debug, Default)]
pub struct Cache {
    map: HashMap<PathBuf, State>,
}

impl Cache {
    pub fn get(&self, file: &Path) -> Option<&State> {
        self.map.get(file)
    }
    /// Mark `file` as being decoded; `false` when it already is or was.
    pub fn want(&mut self, file: &Path) -> bool {
        if self.map.contains_key(file) {
            return false;
        }
        if self.map.len() >= CACHE_ENTRIES {
            // drop the finished ones only: a pending decode still sends its result
            self.map.retain(|_, s| matches!(s, State::Pending));
        }
        self.map.insert(file.to_path_buf(), State::Pending);
        true
    }
    pub(crate) fn put(&mut self, file: PathBuf, r: Result<Preview, String>) {
        let s = match r {
            Ok(p) => State::Ready(Arc::new(p)),
            Err(e) => State::Failed(e),
        };
        self.map.insert(file, s);
    }
}

/// A screenshot artifact, or any `.png`.
pub(crate) fn is_image(a: &Artifact) -> bool {
    a.kind == "screenshot"
        || Path::new(&a.path)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
}

/// The width and height a PNG's IHDR declares, read from its first 24 bytes.
pub fn header(bytes: &[u8]) -> Result<(u32, u32), String> {
    if bytes.len() < 24 || bytes[..8] != SIGNATURE {
        return Err("not a PNG (no PNG signature)".into());
    }
    if &bytes[12..16] != b"IHDR" {
        return Err("broken PNG: the first chunk is not IHDR".into());
    }
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Ok((be(16), be(20)))
}

/// Refuse sizes whose decode would be too big, before anything is allocated for it.
pub(crate) fn check_size(w: u32, h: u32) -> Result<(), String> {
    if w == 0 || h == 0 {
        return Err(format!("broken PNG: {w}×{h} pixels"));
    }
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(format!(
            "{w}×{h} pixels: over the preview limit ({MAX_SIDE} per side), not decoded"
        ));
    }
    Ok(())
}

/// Read and decode `file` of the run folder `within` (transparency over black);
/// messages start with `label`.
pub fn load(file: &Path, within: &Path, label: &str) -> Result<Preview, String> {
    load_over(file, within, label, [0, 0, 0])
}

/// Read and decode `file`, transparency drawn over `background`; messages start with
/// `label` (the run-relative path).
pub(crate) fn load_over(
    file: &Path,
    within: &Path,
    label: &str,
    background: [u8; 3],
) -> Result<Preview, String> {
    // opened beneath the run folder in the same call that reads it: a file
    // swapped for a link out since the artifacts were listed is refused here;
    // the bounded reader refuses FIFOs and devices without blocking
    let bytes = testdeck_core::workspace::read::read(
        file,
        Some(within),
        testdeck_core::workspace::read::Kind::Image,
    )
    .map_err(|e| match e {
        testdeck_core::workspace::read::Error::TooLarge { .. } => {
            format!("{label}: over {} MiB, not read", MAX_FILE >> 20)
        }
        e => format!("{label}: {e}"),
    })?;
    decode_over(&bytes, background).map_err(|e| format!("{label}: {e}"))
}

/// [`decode_over`] black.
pub fn decode(bytes: &[u8]) -> Result<Preview, String> {
    decode_over(bytes, [0, 0, 0])
}

/// Decode PNG bytes row by row into the downscaled copy, transparency drawn over
/// `background`: memory stays one row plus the copy, whatever the image's size (a
/// full-page screenshot of 50 megapixels is streamed, not refused).
// w, h: the image's size; the usual short names of pixel code
#[allow(clippy::many_single_char_names)]
pub fn decode_over(bytes: &[u8], background: [u8; 3]) -> Result<Preview, String> {
    let (w, h) = header(bytes)?;
    check_size(w, h)?;
    let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
    d.set_transformations(png::Transformations::normalize_to_color8());
    d.set_ignore_text_chunk(true);
    d.set_ignore_iccp_chunk(true);
    d.set_limits(png::Limits { bytes: 32 << 20 });
    let mut r = d
        .read_info()
        .map_err(|e| format!("broken PNG header: {e}"))?;
    let (ct, _) = r.output_color_type();
    let channels = ct.samples();
    let (tw, th) = fit(w, h, CACHE_SIDE, CACHE_SIDE);
    let mut acc = Accum::new(w, h, tw, th);
    let mut row = Vec::with_capacity(w as usize);
    // plain rows counted, and the Adam7 pass-7 rows seen (an interlaced image)
    let (mut y, mut k7) = (0u32, 0u32);
    loop {
        let next = r
            .next_interlaced_row()
            .map_err(|e| format!("broken PNG at row {}: {e}", y + k7 + 1))?;
        let Some(line) = next else { break };
        // of an interlaced image only the last pass is used: its rows are full width
        // (rows 1, 3, 5 ...), each standing for itself and the row above it
        let rows = match line.interlace() {
            png::InterlaceInfo::Null(_) => {
                y += 1;
                [Some(y - 1), None]
            }
            png::InterlaceInfo::Adam7(a) if *a == png::Adam7Info::new(7, k7, w) => {
                k7 += 1;
                [Some(2 * k7 - 2), Some(2 * k7 - 1)]
            }
            png::InterlaceInfo::Adam7(_) => continue,
        };
        row.clear();
        row.extend(
            line.data()
                .chunks_exact(channels)
                .map(|c| pixel(c, channels, background)),
        );
        if row.len() != w as usize {
            return Err(format!("broken PNG at row {}: short row", y + k7));
        }
        for ry in rows.into_iter().flatten().filter(|ry| *ry < h) {
            acc.add_row(ry, &row);
        }
    }
    Ok(Preview {
        width: w,
        height: h,
        image: acc.finish(),
    })
}

/// Decode a JPEG (a trace's screencast frame) into the downscaled copy: the size its
/// header declares is checked against [`MAX_SIDE`] and [`MAX_FRAME_PIXELS`] before
/// anything is allocated for it, and the decoder itself is held to an allocation
/// limit. `background` is unused by JPEG (no transparency) and kept for symmetry.
pub fn decode_jpeg(bytes: &[u8], _background: [u8; 3]) -> Result<Preview, String> {
    use image::ImageDecoder as _;
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err("not a JPEG (no JPEG signature)".into());
    }
    let mut d = image::codecs::jpeg::JpegDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("broken JPEG: {e}"))?;
    let (w, h) = d.dimensions();
    if w == 0 || h == 0 {
        return Err(format!("broken JPEG: {w}×{h} pixels"));
    }
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_FRAME_PIXELS {
        return Err(format!(
            "{w}×{h} pixels: over the frame limit ({} megapixels), not decoded",
            MAX_FRAME_PIXELS >> 20
        ));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_FRAME_PIXELS * 4);
    d.set_limits(limits)
        .map_err(|e| format!("JPEG over its limits: {e}"))?;
    let img = image::DynamicImage::from_decoder(d)
        .map_err(|e| format!("broken JPEG: {e}"))?
        .into_rgb8();
    let (tw, th) = fit(w, h, CACHE_SIDE, CACHE_SIDE);
    let mut acc = Accum::new(w, h, tw, th);
    let mut row = Vec::with_capacity(w as usize);
    for (y, r) in img.rows().enumerate() {
        row.clear();
        row.extend(r.map(|p| p.0));
        acc.add_row(y as u32, &row);
    }
    Ok(Preview {
        width: w,
        height: h,
        image: acc.finish(),
    })
}

/// An 8-bit pixel of 1 to 4 samples as RGB (alpha over `bg`, rounded).
fn pixel(c: &[u8], channels: usize, bg: [u8; 3]) -> [u8; 3] {
    let over = |v: u8, a: u8, b: u8| {
        let (v, a, b) = (u32::from(v), u32::from(a), u32::from(b));
        ((v * a + b * (255 - a) + 127) / 255) as u8
    };
    match channels {
        1 => [c[0]; 3],
        2 => [0, 1, 2].map(|i| over(c[0], c[1], bg[i])),
        3 => [c[0], c[1], c[2]],
        _ => [0, 1, 2].map(|i| over(c[i], c[3], bg[i])),
    }
}

/// The largest size of the same aspect ratio as `w`×`h` inside `max_w`×`max_h`, never
/// bigger than the image and never 0.
pub fn fit(w: u32, h: u32, max_w: u32, max_h: u32) -> (u32, u32) {
    let (w, h) = (u64::from(w.max(1)), u64::from(h.max(1)));
    let (mw, mh) = (u64::from(max_w.max(1)), u64::from(max_h.max(1)));
    if w <= mw && h <= mh {
        return (w as u32, h as u32);
    }
    // the limiting side is the one with the smaller ratio
    if w * mh >= h * mw {
        (mw as u32, ((h * mw) / w).max(1) as u32)
    } else {
        (((w * mh) / h).max(1) as u32, mh as u32)
    }
}

/// Area averaging: each source pixel adds to the one target pixel whose box holds it.
struct Accum {
    sw: u32,
    sh: u32,
    tw: u32,
    th: u32,
    sum: Vec<[u64; 4]>,
}

impl Accum {
    fn new(sw: u32, sh: u32, tw: u32, th: u32) -> Accum {
        Accum {
            sw,
            sh,
            tw,
            th,
            sum: vec![[0; 4]; (tw * th) as usize],
        }
    }
    fn add_row(&mut self, y: u32, row: &[[u8; 3]]) {
        let ty = u64::from(y) * u64::from(self.th) / u64::from(self.sh);
        let base = ty as usize * self.tw as usize;
        for (x, p) in row.iter().enumerate() {
            let tx = x as u64 * u64::from(self.tw) / u64::from(self.sw);
            let s = &mut self.sum[base + tx as usize];
            s[0] += u64::from(p[0]);
            s[1] += u64::from(p[1]);
            s[2] += u64::from(p[2]);
            s[3] += 1;
        }
    }
    fn finish(self) -> Rgb {
        let px = self
            .sum
            .iter()
            .map(|s| {
                let n = s[3].max(1);
                // rounded to the nearest
                [0, 1, 2].map(|i| ((s[i] + n / 2) / n) as u8)
            })
            .collect();
        Rgb {
            width: self.tw,
            height: self.th,
            px,
        }
    }
}

/// `img` area-averaged down to `tw`×`th` (at most its own size).
pub fn downscale(img: &Rgb, tw: u32, th: u32) -> Rgb {
    let (tw, th) = (
        tw.clamp(1, img.width.max(1)),
        th.clamp(1, img.height.max(1)),
    );
    let mut acc = Accum::new(img.width, img.height, tw, th);
    for (y, row) in img.px.chunks(img.width.max(1) as usize).enumerate() {
        acc.add_row(y as u32, row);
    }
    acc.finish()
}

/// The picture to draw in `cols`×`rows` cells: two pixels per cell, one above the other.
pub fn for_cells(img: &Rgb, cols: u16, rows: u16) -> Rgb {
    let (tw, th) = fit(img.width, img.height, u32::from(cols), u32::from(rows) * 2);
    downscale(img, tw, th)
}

/// The (foreground, background) colours of the half-block cells of `img`: row `r` holds
/// pixel rows `2r` (upper, the `▀` itself) and `2r + 1` (lower, the background).
pub fn cells(img: &Rgb) -> Vec<Vec<(Color, Color)>> {
    let c = |p: [u8; 3]| Color::Rgb(p[0], p[1], p[2]);
    (0..img.height.div_ceil(2))
        .map(|r| {
            (0..img.width)
                .map(|x| {
                    let top = c(img.at(x, 2 * r));
                    let bottom = if 2 * r + 1 < img.height {
                        c(img.at(x, 2 * r + 1))
                    } else {
                        Color::Reset
                    };
                    (top, bottom)
                })
                .collect()
        })
        .collect()
}

/// Draws an image (already sized by `for_cells`) centred in its area with `▀` cells.
pub(crate) struct HalfBlocks<'a>(pub &'a Rgb);

impl Widget for HalfBlocks<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let rows = cells(self.0);
        let w = (self.0.width as u16).min(area.width);
        let h = (rows.len() as u16).min(area.height);
        let x0 = area.x + (area.width - w) / 2;
        let y0 = area.y + (area.height - h) / 2;
        for (dy, row) in rows.iter().take(h as usize).enumerate() {
            for (dx, (fg, bg)) in row.iter().take(w as usize).enumerate() {
                if let Some(cell) = buf.cell_mut((x0 + dx as u16, y0 + dy as u16)) {
                    cell.set_symbol("▀").set_fg(*fg).set_bg(*bg);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_the_aspect_ratio() {
        assert_eq!(fit(320, 200, 80, 40), (64, 40));
        assert_eq!(fit(320, 200, 40, 100), (40, 25));
        assert_eq!(fit(4, 4, 80, 40), (4, 4));
        assert_eq!(fit(10_000, 1, 10, 10), (10, 1));
    }

    #[test]
    fn a_jpeg_frame_decodes_to_its_downscaled_copy_and_garbage_is_refused() {
        // a 320×200 red JPEG, written by the image crate's own encoder
        let img = image::RgbImage::from_pixel(320, 200, image::Rgb([250, 10, 10]));
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
            .encode_image(&img)
            .expect("encode");
        let p = decode_jpeg(&jpeg, [0, 0, 0]).expect("decodes");
        assert_eq!((p.width, p.height), (320, 200));
        assert_eq!((p.image.width, p.image.height), (240, 150));
        let px = p.image.at(10, 10);
        assert!(px[0] > 200 && px[1] < 60 && px[2] < 60, "{px:?}");
        assert!(decode_jpeg(b"not a jpeg", [0; 3]).is_err());
        // cut in its header: refused; cut in its scan: the decoder fills the rest
        // (no panic either way)
        assert!(
            decode_jpeg(&jpeg[..20], [0; 3]).is_err(),
            "truncated header"
        );
        let _ = decode_jpeg(&jpeg[..jpeg.len() / 3], [0; 3]);
        // a header that declares 60000×60000: refused before decoding
        let mut big = jpeg.clone();
        let sof = big
            .windows(2)
            .position(|w| w == [0xFF, 0xC0])
            .expect("SOF0");
        big[sof + 5..sof + 9].copy_from_slice(&[0xEA, 0x60, 0xEA, 0x60]);
        let e = decode_jpeg(&big, [0; 3]).expect_err("too big");
        assert!(e.contains("60000×60000") || e.contains("limit"), "{e}");
    }

    #[test]
    fn header_and_size_limits() {
        assert!(header(b"GIF89a").is_err());
        let mut b = SIGNATURE.to_vec();
        b.extend([0, 0, 0, 13]);
        b.extend(b"IHDR");
        b.extend(100_000u32.to_be_bytes());
        b.extend(100_000u32.to_be_bytes());
        assert_eq!(header(&b), Ok((100_000, 100_000)));
        assert!(check_size(100_000, 100_000).is_err());
        assert!(check_size(6000, 6000).is_ok());
        assert!(check_size(40_000_000, 1).is_err(), "one side too long");
    }
}
