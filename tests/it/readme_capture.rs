//! The screen capture in the README is the TUI snapshot, kept current by this test.

#[test]
fn readme_holds_the_current_capture() {
    let snap =
        std::fs::read_to_string("tests/it/snapshots/it__tui_snapshots__demo_readme_capture.snap")
            .expect("snapshot");
    let body = snap.splitn(3, "---\n").nth(2).expect("snapshot body");
    let capture: Vec<&str> = body
        .trim_matches('\n')
        .lines()
        .map(|l| {
            l.strip_prefix('"')
                .and_then(|l| l.strip_suffix('"'))
                .unwrap_or(l)
        })
        .collect();
    let readme = std::fs::read_to_string("README.md").expect("README");
    assert!(
        readme.contains(&capture.join("\n")),
        "README's capture drifted from the snapshot: paste the snapshot's lines into README.md"
    );
}
