//! testdeck's core: the model of a project's test workspace as seed 000 and seed 001
//! describe it, with no terminal and no async runtime.
//!
//! - [`workspace`]: discovery, the tests tree, the raw logs of every run
//!   (`tests/logs/<scope>/<caseId>/<runId>/`: `meta.json`, `timeline.jsonl`,
//!   `runtime-events.jsonl`, `artifacts.json`), statistics, the tester catalog
//!   (`.pouch/tester/`), the test plan, contract checks, comparisons and reports,
//!   and the one bounded reader every file goes through;
//! - [`tail`]: following a JSON Lines file as it grows, is truncated or replaced;
//! - [`sanitize`]: the one place text from a file is made safe for a terminal;
//! - [`problem`]: located problems (`file:line:col`).
//! - [`clock`], [`number`], [`color`]: times, counts and colour as a person reads them;
//! - [`progress`]: the progress line of long headless work;
//! - [`userconfig`]: the person's own `config.toml`.
//!
//! Another tool that reads seed 000's logs can use [`Workspace::load`] and the types
//! of [`workspace::logs`] directly.

#![warn(missing_docs)]

pub mod clock;
pub mod color;
pub mod number;
pub mod problem;
pub mod progress;
pub mod sanitize;
pub mod sorted;
pub mod tail;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod userconfig;
pub mod workspace;

pub use problem::{Problem, Severity};
pub use workspace::Workspace;
