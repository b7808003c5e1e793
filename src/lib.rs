//! testdeck: a keyboard-driven terminal test cockpit. The library holds the core
//! (workspace model, tail engine, launching) that the CLI, the TUI and the tests share.

pub mod cli;
pub mod clock;
pub mod color;
pub mod exec;
pub mod number;
pub mod problem;
pub mod progress;
pub mod sanitize;
pub mod tail;
#[cfg(test)]
mod testkit;
pub mod tui;
pub mod userconfig;
pub mod workspace;

pub use problem::{Problem, Severity};
pub use workspace::Workspace;
