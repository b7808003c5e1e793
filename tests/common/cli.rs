//! The built `testdeck` binary, the one place every test file finds it.

use std::path::PathBuf;
use std::process::Command;

/// Path of the `testdeck` binary cargo built for these tests.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_testdeck"))
}

/// A fresh `std::process::Command` for the binary, nothing set.
pub fn command() -> Command {
    Command::new(bin())
}
