//! testdeck's model: what a test workspace says, with no I/O. Every function here
//! takes what it reads as bytes or text and returns values and located problems;
//! reading, walking, watching, caching, git and processes are the store's
//! (`testdeck-core`), which re-exports these modules at their old paths.
//!
//! - [`logs`], [`tree`], [`plan`], [`run_tests`]: the workspace's model: its runs, its
//!   cases, its test plan and what a run's timeline says of its tests;
//! - [`per_test`]: each test of a run from its timeline, with its artifacts;
//! - [`stats`], [`insights`]: the statistics and each case's figures, from the runs;
//! - [`outside`]: the scope of the cases outside the tree;
//! - [`catalog`]: the tester catalog (seed 001) parsed from its YAML texts, and its rules;
//! - [`select`], [`fuzzy`]: which catalog cases a query or a filter selects;
//! - [`vars`], [`assume`], [`host`]: `${VAR}` resolution (the environment passed in),
//!   the `assume` grammar, the hosts a URL or a shell line names;
//! - [`config`]: `testdeck.toml`'s settings parsed from its text;
//! - [`risk`]: the policy ladder every launch is checked against;
//! - [`timeline`], [`meta`], [`run_file`]: a run's `timeline.jsonl` lines, its
//!   `meta.json` and its other JSON files parsed from their bytes, errors located;
//! - [`glob`]: the path patterns of `testdeck.toml`;
//! - [`sanitize`]: the one place text from a file is made safe for a terminal;
//! - [`problem`]: located problems (`file:line:col`);
//! - [`clock`], [`number`], [`sorted`]: times, counts and merges with no clock or I/O.
//!
//! `clippy.toml` beside this crate refuses the file system, threads, processes, the
//! network, the clock and the environment, and `tests/layers.rs` its dependencies.

#![warn(missing_docs)]

pub mod assume;
pub mod catalog;
pub mod clock;
pub mod config;
pub mod fuzzy;
pub mod glob;
pub mod host;
pub mod insights;
pub mod logs;
pub mod meta;
pub mod number;
pub mod outside;
pub mod per_test;
pub mod plan;
pub mod problem;
pub mod risk;
pub mod run_file;
pub mod run_tests;
pub mod sanitize;
pub mod select;
pub mod sorted;
pub mod stats;
pub mod timeline;
pub mod tree;
pub mod vars;

pub use problem::{Problem, Severity};
