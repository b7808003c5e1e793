//! Write the TUI's fixture workspace into a folder: `cargo run --example tui_fixture -- DIR [--hostile]`.

// the tests' fixture workspaces, not shipped in the library
#[allow(dead_code)]
#[path = "../tests/it/common/fixtures.rs"]
mod fixtures;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: tui_fixture DIR [--hostile]");
        std::process::exit(2);
    };
    let hostile = args.next().as_deref() == Some("--hostile");
    fixtures::write_fixture(std::path::Path::new(&dir), hostile);
}
