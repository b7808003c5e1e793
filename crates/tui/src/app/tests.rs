use super::test_support::{app, step};
use super::*;
use crate::action::Action;
use crate::action::RunData;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEventKind};

#[test]
fn a_tick_never_cancels_a_pending_frame() {
    let mut a = app();
    a.update(Action::LoadFailed("x".into()));
    assert!(a.dirty);
    a.update(Action::Tick);
    assert!(a.dirty, "the frame of the load result was dropped");
    a.dirty = false;
    a.update(Action::Tick);
    assert!(!a.dirty, "an idle tick must not redraw");
}

fn append(a: &mut App, reset: bool, names: &[&str]) -> Vec<Effect> {
    a.follow_queued(
        "run",
        testdeck_core::tail::live_run::RunUpdate {
            reset,
            events: names.iter().map(|n| step(n)).collect(),
            problems: Vec::new(),
            finished: false,
        },
    )
}

#[test]
fn timeline_appends_keep_the_cap_reset_and_the_person_s_place() {
    let mut a = app();
    a.live.set_cap(4);
    a.live.set_wanted(Some(RunRef::Folder("run".into())));
    a.update(Action::RunLoaded(Box::new(RunData {
        path: "run".into(),
        in_progress: true,
        ..RunData::default()
    })));
    append(&mut a, false, &["a", "b", "c"]);
    // paused on "b"
    a.live.pause_at(1);
    append(&mut a, false, &["d", "e"]);
    let run = a.live.run().expect("run");
    let shown: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(shown, ["b", "c", "d", "e"]);
    assert_eq!(run.skipped, 1);
    let row = a.live.row(a.live.list().cursor).expect("a row");
    assert_eq!(run.events[row].name, "b");
    // another run's lines are not ours
    a.follow_queued(
        "other",
        testdeck_core::tail::live_run::RunUpdate {
            reset: true,
            events: vec![step("x")],
            problems: vec!["line 1: x".into()],
            finished: true,
        },
    );
    assert_eq!(a.live.run().expect("run").events.len(), 4);
    // the file was replaced: only the new lines are shown, the count starts again
    append(&mut a, true, &["n1"]);
    let run = a.live.run().expect("run");
    assert_eq!(run.events.len(), 1);
    assert_eq!(run.skipped, 0);
    assert_eq!(a.live.list().cursor, 0);
}

fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Action {
    Action::Mouse(crossterm::event::MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })
}

/// Any-motion reporting sends a motion event for every cell the pointer crosses:
/// none of them may draw a frame or ask for work; a click that moves nothing
/// draws none either, one that selects a row does.
#[test]
fn mouse_motion_changes_nothing_and_draws_no_frame() {
    let mut a = app();
    a.update(Action::Resize(120, 40));
    a.live.set_run(Some(RunData {
        path: "run".into(),
        events: (0..5).map(|i| step(&format!("s{i}"))).collect(),
        ..RunData::default()
    }));
    a.live.refilter();
    a.dirty = false;
    for col in 0..120 {
        let fx = a.update(mouse(MouseEventKind::Moved, col, 10));
        assert!(fx.is_empty(), "{fx:?}");
        assert!(!a.dirty, "a motion at column {col} asked for a frame");
    }
    let live = a.areas().panes.live.expect("the live pane");
    let focus_live = mouse(
        MouseEventKind::Down(MouseButton::Left),
        live.x + 2,
        live.y + 3,
    );
    a.update(focus_live);
    assert!(a.dirty, "a click that focuses a pane draws");
    assert_eq!(a.focus, Pane::Live);
    a.dirty = false;
    // the same row again: nothing moves
    a.update(mouse(
        MouseEventKind::Down(MouseButton::Left),
        live.x + 2,
        live.y + 3,
    ));
    assert!(!a.dirty, "a click that changes nothing drew a frame");
    a.update(mouse(
        MouseEventKind::Up(MouseButton::Left),
        live.x + 2,
        live.y + 3,
    ));
    assert!(!a.dirty, "a button release drew a frame");
    a.update(mouse(
        MouseEventKind::Down(MouseButton::Left),
        live.x + 2,
        live.y + 4,
    ));
    assert!(a.dirty, "selecting another row must draw");
    assert_eq!(a.live.list().cursor, 2);
}

#[test]
fn key_sequences_go_through_the_keymap() {
    let mut a = app();
    a.on_key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE));
    assert!(matches!(a.layers.overlay(), Some(Overlay::Help { .. })));
    a.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(a.layers.overlay().is_none());
    a.on_key(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::NONE));
    assert_eq!(a.pending_keys(), "g");
    a.on_key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE));
    assert_eq!(
        a.tab,
        Tab::Runs,
        "a broken sequence still runs its last key"
    );
}
