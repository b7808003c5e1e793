//! The App: all state of the cockpit — tabs, panes, features — and
//! `update(Action) -> Vec<Effect>`, which dispatches to them. No drawing, no terminal,
//! no I/O: slow work is asked for as an `Effect` and comes back as an `Action`.

/// The state every pane may read ([`pane::Shared`]), built field by field from
/// the App `$app`, so that a pane beside it can be borrowed to answer.
macro_rules! shared {
    ($app:expr) => {
        $crate::app::pane::Shared {
            root: &$app.opts.root,
            ws: $app.domain.ws(),
            indexing: $app.domain.indexing(),
            asking: $app.layers.overlay().is_some() || $app.layers.input().is_some(),
            picture_background: $app.previews.background(),
            tab: $app.tab,
            tree_height: $app.areas().panes.tree.height as usize,
            tests: &$app.tests,
            catalog: &$app.catalog,
            runs: &$app.runs,
            live: &$app.live,
            opts: &$app.opts,
            opener_places: &$app.opener_places,
            focus: $app.focus,
            size: $app.size,
            marks: &$app.marks,
            candidates: $app.domain.candidates(),
            runs_live: $app.launch.running() + $app.watch.reruns(),
            notice: $app.notice.as_deref(),
        }
    };
}

/// The tabs lent to the Domain beside it ([`domain::Tabs`]) by the App `$app`.
macro_rules! tabs {
    ($app:expr) => {
        domain::Tabs::new(&mut $app.tests, &mut $app.catalog, &mut $app.runs)
    };
}

/// The deck ([`navigate::Deck`]: the tab, the focus, sizes and the panes they
/// arrange) lent by the App `$app` for one call.
macro_rules! deck {
    ($app:expr) => {
        $crate::app::navigate::Deck {
            tab: &mut $app.tab,
            focus: &mut $app.focus,
            sizing: &mut $app.sizing,
            size: $app.size,
            tests: &mut $app.tests,
            catalog: &mut $app.catalog,
            runs: &mut $app.runs,
            live: &mut $app.live,
            details: &mut $app.details,
            ws: $app.domain.ws(),
            banner: layout::banner(&$app.opts.host),
            hints: $app.key_hints,
            root: &$app.opts.root,
        }
    };
}

/// Hand component `$app.$field` (or no component) to `$body` with a [`pane::Ctx`]
/// (`$cx`) over the shared state; then route what it published. The body's value
/// and the effects.
macro_rules! answer {
    ($app:ident . $field:ident, |$c:ident, $cx:ident| $body:expr) => {
        answer!($app, |$cx| {
            let $c = &mut $app.$field;
            $body
        })
    };
    ($app:ident, |$cx:ident| $body:expr) => {{
        let (mut fx, mut published) = (Vec::new(), Vec::new());
        let value = {
            let mut $cx = $crate::app::pane::Ctx::new(shared!($app), &mut fx, &mut published);
            $body
        };
        for e in published {
            let more = $app.publish(e);
            fx.extend(more);
        }
        (value, fx)
    }};
}

pub mod add_case;
pub mod catalog_tab;
pub mod changes;
pub mod clipboard;
pub mod compare;
pub mod contract;
pub mod details;
pub mod domain;
pub mod editor;
mod effect;
mod features;
pub mod finder;
mod hints;
mod input;
pub mod insights;
pub mod launch;
mod layers;
pub mod layout;
pub mod list;
pub mod live;
mod mouse;
mod navigate;
pub mod opener;
pub mod overlay;
pub mod pane;
mod pictures;
pub mod preview;
pub mod problems;
pub mod prompt;
#[cfg(test)]
mod random_changes;
pub mod report;
mod router;
mod run_meta;
pub mod runs_tab;
pub mod screen;
mod selection;
#[cfg(test)]
mod selection_table;
pub mod snapshot;
mod targets;
#[cfg(test)]
mod test_support;
pub mod tests_tab;
pub mod trace;
pub mod watch;
pub mod why;

use std::path::PathBuf;

#[cfg(test)]
use super::action::Action;

use super::keymap::{Keymap, Resolver};
use std::collections::BTreeSet;

pub use catalog_tab::{CatRow, CatalogTab};
pub use effect::{EditTarget, Effect};
pub use finder::{Candidate, Finder};
pub use launch::runner_output::is_output;
pub use list::ListState;
pub use live::{Live, RunRef, is_failure};
pub use overlay::{InputTarget, Overlay, Prompt};
pub use preview::PreviewTarget;
pub use runs_tab::{RunRow, RunsTab, record_run_data};
pub use screen::Screen;
pub use testdeck_core::workspace::cases::{CaseRef, CaseRow, NodeKind, TreeNode};
pub use tests_tab::TestsTab;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Tests,
    Catalog,
    Runs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Details,
    Live,
    Artifacts,
}

pub const PANES: [Pane; 4] = [Pane::Tree, Pane::Details, Pane::Live, Pane::Artifacts];

/// Options the shell passes in.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Shown in the status bar (the root folder's name).
    pub label: String,
    pub root: PathBuf,
    pub host: String,
    /// Read HOST and switches from the process environment (off in tests, so frames
    /// never depend on the machine).
    pub use_env: bool,
}

/// The cockpit's state: the components — tabs, panes, features — each owning
/// its own; `router.rs` holds its one `impl`, which routes.
pub struct App {
    opts: Options,
    keymap: Keymap,
    /// Where the person's own openers and remembered trust are (none in tests
    /// that do not set them: built-in openers, nothing remembered).
    opener_places: testdeck_core::workspace::openers::UserDirs,
    resolver: Resolver,
    /// The workspace loaded, how far its load is, the finder's candidates.
    domain: domain::Domain,
    /// Animation frame of the indexing spinner.
    spinner: usize,
    /// The whole `meta.json` of the run the details show.
    run_meta: run_meta::RunMeta,
    size: (u16, u16),
    tab: Tab,
    focus: Pane,
    tests: TestsTab,
    catalog: CatalogTab,
    runs: RunsTab,
    live: Live,
    /// The details pane: its scroll, bounded by the last frame, from the top
    /// for each new subject.
    details: details::DetailsPane,
    /// Marked cases of both sources.
    marks: BTreeSet<CaseRef>,
    /// Zoom and the tree's width, as the person set them.
    sizing: layout::Sizing,
    /// The overlay stack: a full screen, an overlay over it, the filter line.
    layers: overlay::Layers,
    /// The launch component: authorizations, max risk, runs in flight, verdicts.
    launch: launch::Launch,
    /// One-line messages for the status bar (config errors, notices).
    notice: Option<String>,
    watch: watch::Watch,
    compare: compare::Compare,
    previews: preview::Previews,
    contract: contract::Contract,
    /// The key-hint line is shown (`[ui] key_hints` in the person's config).
    key_hints: bool,
    /// The problems list (`p`): validate's problems, the openers' and runners' failures.
    problems: problems::Problems,
    /// The failure digests read for `W` and the details' summary.
    why: why::Why,
    /// The terminal's picture protocol and the screenshot encoded for it.
    graphics: crate::graphics::Graphics,
    quit: bool,
    dirty: bool,
    /// What the workspace watch made of runs (external ones, the one to read again).
    changes: changes::Changes,
    /// `a`: the case being added in a folder.
    adding: add_case::AddCase,
    /// What the panes derived from the domain at the last change, for the frames.
    derived: snapshot::Derived,
}

/// What a drawn frame measured: how far wrapped text can scroll.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measured {
    /// The details pane's last scroll row (its wrapped rows less the rows shown).
    pub details_max: usize,
}

#[cfg(test)]
mod tests;
