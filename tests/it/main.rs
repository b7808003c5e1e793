//! The integration tests: one binary, one module per area (`cargo test` builds and
//! links it once). `supervisor_reap` stays a binary of its own: it counts every child
//! of its process, so no other test may run beside it.

#![allow(
    clippy::too_many_lines,
    reason = "a test reads as one story, set up, act, check, top to bottom"
)]

mod common;
#[allow(dead_code)] // the generator's binary uses every part; the tests a few
#[path = "../../examples/gen-workspace.rs"]
mod gen_workspace;

mod adopt;
mod architecture;
mod catalog_commands;
mod catalog_robust;
mod changed_cli;
mod cli_pipe;
mod cli_shell;
mod contract_checks;
mod counted;
mod demo_catalog;
mod demo_commands;
mod demo_gen;
mod demo_runner;
mod demo_workspace;
mod diff_cli;
mod exec_authorization;
mod exec_catalog;
mod exec_tests_tree;
mod explain;
mod failed_run;
mod faults_kill;
mod faults_tui;
mod finder_filter;
mod graph_changed;
mod hostile_escape;
mod hostile_reads;
mod hostile_workspace;
mod hostile_yaml;
mod init_project;
mod insights_cli;
mod insights_pty;
mod junit;
mod line_limit;
mod live_pane;
mod live_workspace;
mod new_case;
mod one_pass;
mod one_runner;
mod outside_cases;
mod packaging;
mod per_test_events;
mod per_test_why;
mod reading_pty;
mod reading_view;
mod readme_capture;
mod real_runs;
mod realworld;
mod realworld_shot;
mod realworld_views;
mod realworld_why;
mod regressions;
mod report_cli;
mod report_pty;
mod run_states;
mod runner_missing;
mod selection_pty;
mod state_pty;
mod supervisor;
mod tail_cli;
mod tail_torture;
mod theme_contrast;
mod trace;
mod trace_pane;
mod trust_boundary;
mod trust_second;
mod trust_third;
mod trust_tui;
mod tui_editor_clip;
mod tui_extras;
mod tui_extras_pty;
mod tui_graphics_pty;
mod tui_image;
mod tui_model;
mod tui_model_pty;
mod tui_pty;
mod tui_snapshots;
mod tui_staged;
mod tui_view;
mod tui_view_pty;
mod tui_why;
mod validate_bad;
mod verdict_cli;
mod watch_cli;
mod watch_core;
