//! Screenshot previews: which artifact can be previewed, the decoded images by file,
//! and the decode each new screenshot needs (once per file).

use super::super::feature_work::FeatureWork;
use super::super::image;
use super::Effect;
use super::live::Live;
use super::pane::{Component, Ctx, Published};
use std::path::{Path, PathBuf};
use testdeck_core::sanitize::escape;

/// Rows the artifacts pane must have free under its list to show a preview there.
pub const PREVIEW_ROWS: u16 = 6;

/// What the artifacts pane can preview for the selected artifact.
#[derive(Debug, Clone)]
pub enum PreviewTarget {
    /// Not an image: nothing to preview.
    None,
    /// An image that is never read, and why.
    Refused(String),
    /// An image inside its run folder: the file and its run-relative path.
    File(PathBuf, String),
}

/// The previews decoded (or being decoded), by file.
#[derive(Debug, Default)]
pub struct Previews {
    cache: image::Cache,
    /// The theme's background: transparency is drawn over it.
    background: [u8; 3],
}

/// The selected artifact of the live pane's run as something to preview.
pub fn target(live: &Live, root: &Path) -> PreviewTarget {
    let Some(run) = live.run() else {
        return PreviewTarget::None;
    };
    let Some(a) = run.artifacts.get(live.artifacts().cursor) else {
        return PreviewTarget::None;
    };
    if !image::is_image(a) {
        return PreviewTarget::None;
    }
    // `file()` is the one way to a path: it gives none that leaves the run folder
    let Some(file) = a.file(&root.join(&run.path)) else {
        return PreviewTarget::Refused(format!(
            "refused: {} leaves the run folder",
            escape(&a.path)
        ));
    };
    if !a.exists {
        return PreviewTarget::Refused(format!("missing: {}", escape(&a.path)));
    }
    PreviewTarget::File(file, a.path.clone())
}

impl Previews {
    /// The previews decoded or being decoded.
    pub fn cache(&self) -> &image::Cache {
        &self.cache
    }

    /// A decoding came back.
    pub fn put(&mut self, file: PathBuf, preview: Result<image::Preview, String>) {
        self.cache.put(file, preview);
    }

    /// The theme's background, drawn under transparency.
    pub fn background(&self) -> [u8; 3] {
        self.background
    }

    /// The theme's background, drawn under transparency.
    pub fn set_background(&mut self, rgb: [u8; 3]) {
        self.background = rgb;
    }

    /// The decode screenshot `file` (beneath the run folder `within`) needs, once
    /// per file: the failure view's bound screenshot.
    pub fn job_for(&mut self, file: PathBuf, within: PathBuf, label: String) -> Vec<Effect> {
        let job = self
            .cache
            .want(&file)
            .then_some(Effect::Work(FeatureWork::Preview {
                file,
                within,
                label,
                background: self.background,
            }));
        job.into_iter().collect()
    }

    /// The decode the selected screenshot of `live` needs, once per file.
    pub fn job(&mut self, live: &Live, root: &Path) -> Option<Effect> {
        let PreviewTarget::File(file, label) = target(live, root) else {
            return None;
        };
        // the bound goes with the job: the file is opened beneath its run folder
        // when it is read, not only checked when the artifacts were listed
        let within = root.join(&live.run()?.path);
        self.cache
            .want(&file)
            .then_some(Effect::Work(FeatureWork::Preview {
                file,
                within,
                label,
                background: self.background,
            }))
    }
}

/// A subscriber: after a change, the screenshot the live pane selects is read.
impl Component for Previews {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Changed)
    }

    fn on_event(&mut self, _: &Published, cx: &mut Ctx) {
        let job = self.job(cx.shared.live, cx.shared.root);
        cx.effect(job);
    }
}
