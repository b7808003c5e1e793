//! The artifacts pane: the run's `artifacts.json` items, opened with `o`, the selected
//! screenshot previewed below them, and full screen with `i`.

use super::super::app::Live;
use super::super::app::preview::PreviewTarget;
use super::super::app::preview::Previews;
use super::super::graphics::Graphics;
use super::super::image::{self, HalfBlocks, State};
use super::super::theme::Theme;
use super::{pane, spread};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph};
use std::path::Path;
use testdeck_core::sanitize::escape;

pub use super::super::app::preview::PREVIEW_ROWS;

/// The screenshots decoded so far and the terminal's picture protocol.
#[derive(Clone, Copy)]
pub struct Pictures<'a> {
    pub previews: &'a Previews,
    pub graphics: &'a Graphics,
}

/// The artifacts pane of the run `live` shows; `target` is the selection to preview.
pub fn draw(
    live: &Live,
    (target, pics): (&PreviewTarget, Pictures),
    has_focus: bool,
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
) {
    let arts = live.run().map_or(&[][..], |r| r.artifacts.as_slice());
    let block = pane(format!(" Artifacts · {} ", arts.len()), has_focus, theme);
    let inner = block.inner(r);
    f.render_widget(block, r);
    if arts.is_empty() {
        let msg = if live.run().is_some() {
            "no artifacts in this run"
        } else {
            // what the pane would show, and how to get it
            "A run's screenshots, traces and reports: select a case or a run that has some"
        };
        f.render_widget(
            Paragraph::new(msg)
                .style(theme.get("muted"))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            inner,
        );
        return;
    }
    // the list keeps its rows; what is left below it (enough of it) previews the selection
    let list_h = (arts.len() as u16).min(inner.height);
    let free = inner.height - list_h;
    let inner = if free >= PREVIEW_ROWS {
        if !matches!(target, PreviewTarget::None) {
            let below = Rect {
                y: inner.y + list_h,
                height: free,
                ..inner
            };
            preview(pics, target, theme, f, below, false);
        }
        Rect {
            height: list_h,
            ..inner
        }
    } else {
        inner
    };
    let w = inner.width as usize;
    let skip = live
        .artifacts()
        .cursor
        .saturating_sub(inner.height.saturating_sub(1) as usize);
    let mut lines = Vec::new();
    for (i, a) in arts
        .iter()
        .enumerate()
        .skip(skip)
        .take(inner.height as usize)
    {
        let icon = match a.kind.as_str() {
            "trace" => "⧉",
            "screenshot" => "▣",
            "video" => "▶",
            "playwright-report" => "▤",
            "jsonl" => "≡",
            _ => "•",
        };
        let left = vec![
            Span::styled(
                format!("{icon} {:<17} ", escape(&a.kind)),
                theme.get("accent"),
            ),
            Span::styled(escape(&a.path).into_owned(), theme.get("text")),
        ];
        let mut right = Vec::new();
        if let Some(s) = &a.step_id {
            right.push(Span::styled(
                format!("◆ step {} ", escape(s)),
                theme.get("artifact_ref"),
            ));
        }
        if let Some(s) = &a.assertion_id {
            right.push(Span::styled(
                format!("◆ assert {} ", escape(s)),
                theme.get("artifact_ref"),
            ));
        }
        if !a.inside {
            right.push(Span::styled("outside run folder ", theme.get("failed")));
        } else if !a.exists {
            right.push(Span::styled("missing ", theme.get("warning")));
        }
        let mut l = spread(left, right, w);
        if i == live.artifacts().cursor && has_focus {
            l = l.style(theme.get("selection"));
        }
        lines.push(l);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The preview of `target` in `r`: a caption row, then the picture (or why there is none).
pub fn preview(
    pics: Pictures,
    target: &PreviewTarget,
    theme: &Theme,
    f: &mut Frame,
    r: Rect,
    full: bool,
) {
    let (file, label) = match target {
        PreviewTarget::None => return,
        PreviewTarget::Refused(why) => {
            f.render_widget(
                Paragraph::new(format!("no preview: {why}")).style(theme.get("failed")),
                Rect { height: 1, ..r },
            );
            return;
        }
        PreviewTarget::File(file, label) => (file, label),
    };
    let caption =
        |text: String, style: &str| Paragraph::new(Line::styled(text, theme.get(style))).centered();
    let top = Rect { height: 1, ..r };
    let body = Rect {
        y: r.y + 1,
        height: r.height.saturating_sub(1),
        ..r
    };
    match pics.previews.cache().get(file) {
        None | Some(State::Pending) => {
            f.render_widget(
                caption(format!("{} · decoding…", escape(label)), "muted"),
                top,
            );
        }
        Some(State::Failed(e)) => {
            // a refusal can be longer than the pane is wide: wrapped, not cut
            f.render_widget(
                Paragraph::new(Line::styled(escape(e).into_owned(), theme.get("warning")))
                    .centered()
                    .wrap(ratatui::widgets::Wrap { trim: true }),
                r,
            );
        }
        Some(State::Ready(p)) => {
            let hint = if full { "" } else { " · i full screen" };
            let size = format!("{}×{}", p.width, p.height);
            // full screen, a terminal with a picture protocol: the encoded picture
            if let Some(proto) = pics.graphics.protocol(file, body).filter(|_| full) {
                f.render_widget(caption(format!("{} · {size}", escape(label)), "muted"), top);
                f.render_widget(ratatui_image::Image::new(proto), body);
                return;
            }
            if theme.no_color {
                // half blocks without colours would be one flat shape: say what is there
                f.render_widget(
                    caption(
                        format!("{} · {size} · preview needs colour", escape(label)),
                        "muted",
                    ),
                    top,
                );
                return;
            }
            f.render_widget(
                caption(format!("{} · {size}{hint}", escape(label)), "muted"),
                top,
            );
            let img = image::for_cells(&p.image, body.width, body.height);
            f.render_widget(HalfBlocks(&img), body);
        }
    }
}

/// `i`: the screenshot over the whole screen, closed with Esc or q.
pub fn screen(pics: Pictures, file: &Path, label: &str, theme: &Theme, f: &mut Frame) {
    let r = f.area();
    super::clear_box(f, r);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get("border_focus"))
        .title(Span::styled(" Screenshot ", theme.get("title")))
        .title_bottom(Span::styled(" Esc close ", theme.get("muted")));
    let inner = block.inner(r);
    f.render_widget(block, r);
    let target = PreviewTarget::File(file.to_path_buf(), label.to_string());
    preview(pics, &target, theme, f, inner, true);
}
