//! What the app's unit tests share: an app as the shell builds it (the built-in
//! keymap, nothing read from the environment) and a timeline step.

use super::{App, Options};
use crate::keymap::Keymap;
use testdeck_core::workspace::timeline::TimelineEvent;

pub fn app() -> App {
    App::new(
        Options::default(),
        Keymap::builtin("default").unwrap_or_default(),
    )
}

/// An app on the demo workspace written under `root`, loaded, 120 × 40.
pub fn demo_app(root: &std::path::Path) -> App {
    testdeck_core::workspace::demo::write_demo(root).expect("demo");
    let mut app = App::new(
        Options {
            root: root.to_path_buf(),
            ..Options::default()
        },
        Keymap::builtin("default").unwrap_or_default(),
    );
    app.update(super::Action::Resize(120, 40));
    let ws = testdeck_core::workspace::Workspace::load(root).expect("load");
    app.update(super::Action::Loaded(Box::new(ws)));
    app
}

/// A passed step named `name`.
pub fn step(name: &str) -> TimelineEvent {
    super::launch::runner_output::note("step", name, "ok", String::new())
}

/// A tests case `id` starting in a launch, its run folder `path`.
pub fn case_start(id: &str, path: Option<String>) -> testdeck_exec::ExecEvent {
    testdeck_exec::ExecEvent::CaseStart {
        id: id.into(),
        source: "tests".into(),
        title: None,
        category: None,
        risk: None,
        command: None,
        run_id: None,
        path,
    }
}

/// The key of the tests tree's first case that has a test file.
pub fn first_case(app: &App) -> String {
    app.tests
        .cases()
        .iter()
        .find(|c| !c.orphan())
        .map(|c| c.key.clone())
        .expect("a case")
}
