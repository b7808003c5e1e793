//! The opener's file work is the runtime's: the trust the person gave is
//! written, and the copy made for an opener that will not run is removed, by
//! effects — `App::update` writes and removes nothing.

use super::*;
use std::sync::mpsc;
use testdeck_core::workspace::openers::{self, Decision, OpenerKind, UserDirs};

fn runtime(root: &Path) -> (Runtime, mpsc::Receiver<Action>) {
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let send: ActionSink = Arc::new(move |a| {
        let _ = tx.lock().map(|t| t.send(a));
    });
    (Runtime::new(root.to_path_buf(), send), rx)
}

fn notice(rx: &mpsc::Receiver<Action>) -> String {
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Action::Notice(n)) => n,
        other => panic!("no notice: {other:?}"),
    }
}

#[test]
fn trust_is_written_by_the_runtime_and_said_and_a_discard_removes_the_copy_s_folder() {
    let ws = tempfile::tempdir().expect("tmp");
    let state = tempfile::tempdir().expect("tmp");
    let argv = vec!["true".to_owned()];
    std::fs::write(
        ws.path().join("testdeck.toml"),
        "[open]\ndefault = [\"true\"]\n",
    )
    .expect("toml");
    let places = UserDirs {
        config_dir: None,
        state_dir: Some(state.path().join("testdeck")),
    };
    assert!(
        matches!(
            openers::decide(ws.path(), &places, OpenerKind::Default),
            Decision::Ask { .. }
        ),
        "not trusted yet"
    );
    let (mut rt, rx) = runtime(ws.path());
    let trust = |places: &UserDirs| Effect::Trust {
        places: places.clone(),
        slot: OpenerKind::Default,
        argv: argv.clone(),
        shown: "artifacts/a.png".into(),
    };
    assert!(rt.apply(trust(&places)));
    assert_eq!(notice(&rx), "opening artifacts/a.png (opener trusted)");
    assert!(state.path().join("testdeck/trusted-openers.toml").is_file());
    assert_eq!(
        openers::decide(ws.path(), &places, OpenerKind::Default),
        Decision::Run(argv.clone()),
        "remembered"
    );
    // no state folder: the opener runs this once, and that is said
    assert!(rt.apply(trust(&UserDirs::default())));
    let n = notice(&rx);
    assert!(
        n.starts_with("opening artifacts/a.png (trusted this once; not remembered: "),
        "{n}"
    );
    // the private copy's folder goes, and only it
    let outer = tempfile::tempdir().expect("tmp");
    let copy_dir = outer.path().join("copy");
    std::fs::create_dir(&copy_dir).expect("mkdir");
    std::fs::write(copy_dir.join("a.png"), "png").expect("copy");
    assert!(rt.apply(Effect::Discard(copy_dir.join("a.png"))));
    assert!(!copy_dir.exists() && outer.path().is_dir());
}
