//! testdeck's core: the model of a project's test workspace as seed 000 and seed 001
//! describe it, with no terminal and no async runtime.
//!
//! - [`workspace`]: discovery, the tests tree, the raw logs of every run
//!   (`tests/logs/<scope>/<caseId>/<runId>/`: `meta.json`, `timeline.jsonl`,
//!   `runtime-events.jsonl`, `artifacts.json`), statistics, the tester catalog
//!   (`.pouch/tester/`), the test plan, contract checks, comparisons and reports,
//!   and the one bounded reader every file goes through;
//! - [`tail`]: following a JSON Lines file as it grows, is truncated or replaced;
//! - [`sanitize`], [`problem`], [`number`], [`sorted`]: the model's (`testdeck-model`,
//!   which does no I/O), re-exported here at their old paths;
//! - [`clock`], [`color`]: times and colour as a person reads them;
//! - [`progress`]: the progress line of long headless work;
//! - [`userconfig`]: the person's own `config.toml`.
//!
//! Another tool that reads seed 000's logs can use [`Workspace::load`] and the types
//! of [`workspace::logs`] directly.

#![warn(missing_docs)]

pub mod clock;
pub mod color;
pub mod progress;
pub mod tail;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod userconfig;
pub mod workspace;

// the model (no I/O) at the paths it had when it lived here
pub use testdeck_model::{number, problem, sanitize, sorted};

pub use problem::{Problem, Severity};
pub use workspace::Workspace;
