//! Launching: the runner for the tests tree, catalog cases, processes,
//! authorization policy, probes, expectations, run records.

pub mod http;
pub mod policy;
pub mod process;
pub mod record;
pub mod sys;
