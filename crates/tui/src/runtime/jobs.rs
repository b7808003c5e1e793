//! The features' jobs: the ones that end by themselves (`run_now`) and the
//! watch thread (`Jobs`).

use crate::action::{Action, ActionSink};
use crate::feature_work::{FeatureResult, FeatureWork, Opening, ReportWrite};
use std::path::Path;
use std::sync::Arc;
use testdeck_core::workspace::insights::ChangeTimesRead as _;
use testdeck_core::workspace::logs::RunDetails as _;
use testdeck_core::workspace::new_case::NewCase;
use testdeck_exec::process::Cancel;

/// Do a job that ends by itself (all but `Watch`) and give its result.
pub fn run_now(job: FeatureWork, root: &Path) -> Option<FeatureResult> {
    run_now_in(job, root, None)
}

/// [`run_now`] with the history cache folder `cache`: the import graph's index
/// kept there (`stale`'s change times and `--changed` parse only the modules
/// that changed since).
pub fn run_now_in(job: FeatureWork, root: &Path, cache: Option<&Path>) -> Option<FeatureResult> {
    match job {
        FeatureWork::Watch(..) => None,
        FeatureWork::Compare { a, b } => Some(FeatureResult::Compare(
            testdeck_core::workspace::diff::diff_runs(root, &root.join(&a), &root.join(&b))
                .map(Box::new),
        )),
        FeatureWork::Report { domain } => {
            let file = format!("tests/report/{domain}/report.md");
            if std::fs::symlink_metadata(root.join(&file)).is_err() {
                // no report yet: the draft the logs give, on the workspace on disk
                return Some(FeatureResult::ReportDraft {
                    draft: testdeck_core::workspace::Workspace::load(root)
                        .map_err(|e| e.to_string())
                        .and_then(|ws| testdeck_core::workspace::report::draft(&ws, &domain))
                        .map(Box::new),
                    domain,
                });
            }
            Some(FeatureResult::Report {
                text: read_report(root, &file),
                domain,
                file,
            })
        }
        FeatureWork::ReportUpdate { domain } => Some(FeatureResult::ReportUpdate(
            testdeck_core::workspace::Workspace::load(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| testdeck_core::workspace::report::update(&ws, &domain))
                .map(Box::new),
        )),
        FeatureWork::ReportWrite(w) => Some(match *w {
            ReportWrite::Draft(d) => FeatureResult::ReportWritten {
                result: d.write(root).map(|()| {
                    format!(
                        "wrote {}: the parts marked {} are yours to write",
                        d.file,
                        testdeck_core::workspace::report::PLACEHOLDER
                    )
                }),
                domain: d.domain,
            },
            ReportWrite::Update(u) => FeatureResult::ReportWritten {
                result: u.write(root).map(|()| {
                    format!(
                        "updated {}: {} changes from the logs",
                        u.file,
                        u.changes.len()
                    )
                }),
                domain: u.domain,
            },
        }),
        FeatureWork::Contract(runs) => Some(FeatureResult::Contract(
            runs.iter()
                .map(|r| {
                    (
                        r.path.clone(),
                        testdeck_core::workspace::contract::check_run(root, r).len(),
                    )
                })
                .collect(),
        )),
        FeatureWork::Preview {
            file,
            within,
            label,
            background,
        } => Some(FeatureResult::Preview {
            preview: crate::image::load_over(&file, &within, &label, background),
            file,
        }),
        FeatureWork::Trace {
            file,
            within,
            label,
        } => Some(FeatureResult::Trace {
            // opened beneath its run folder, bounded (a bomb or a broken zip is a
            // located problem)
            trace: testdeck_core::workspace::trace::Trace::read(&file, Some(&within), &label)
                .map(Arc::new)
                .map_err(|p| p.to_string()),
            root_real: root.canonicalize().ok(),
            file,
        }),
        FeatureWork::TraceFrame {
            file,
            trace,
            frame,
            background,
        } => Some(FeatureResult::TraceFrame {
            preview: trace
                .frame_bytes(&frame)
                .map_err(|p| p.to_string())
                .and_then(|b| {
                    crate::image::decode_jpeg(&b, background)
                        .map_err(|e| format!("{}: {e}", frame.entry))
                }),
            entry: frame.entry,
            file,
        }),
        FeatureWork::Digest { run } => Some(FeatureResult::Digest {
            digest: Box::new(testdeck_core::workspace::failure::Digest::read(
                root,
                &root.join(&run),
            )),
            run,
        }),
        // the same load and rules as `testdeck validate`: one home for the list
        FeatureWork::Validate => {
            let mut contract = Vec::new();
            Some(FeatureResult::Validate(
                testdeck_core::workspace::Workspace::load_with(root, Some(&mut contract))
                    .map(|ws| testdeck_core::workspace::validate::validate_with(&ws, contract))
                    .map_err(|e| e.to_string()),
            ))
        }
        FeatureWork::ChangeTimes { files } => Some(FeatureResult::ChangeTimes(Box::new(
            testdeck_core::workspace::insights::ChangeTimes::read_files(root, files, cache),
        ))),
        // git is asked off the UI thread, on the workspace as it is on disk
        FeatureWork::Changed => Some(FeatureResult::Changed(
            testdeck_core::workspace::Workspace::load(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| {
                    testdeck_core::workspace::changed::changed_in(&ws, None, cache)
                        .map_err(|e| e.to_string())
                }),
        )),
        // `a`: the same core steps as `testdeck new`, on the workspace as it is on disk
        FeatureWork::NewCasePlan { target } => {
            let case = testdeck_core::workspace::Workspace::load_tree(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| {
                    let mut c = NewCase::prepare(&ws, &target).map_err(|e| e.to_string())?;
                    c.write_plan(root).map_err(|e| e.to_string())?;
                    Ok(Box::new(c))
                });
            let set = |n: &str| std::env::var(n).is_ok_and(|v| !v.trim().is_empty());
            Some(FeatureResult::NewCasePlanned {
                case,
                editor: set("VISUAL") || set("EDITOR"),
            })
        }
        FeatureWork::NewCaseFile(c) => Some(FeatureResult::NewCaseWritten(
            c.write_test(root).map(|()| c).map_err(|e| e.to_string()),
        )),
        // `a` on a temp case: the same core steps as `testdeck adopt`
        FeatureWork::AdoptPlan { file, to } => {
            let adoption = testdeck_core::workspace::Workspace::load_tree(root)
                .map_err(|e| e.to_string())
                .and_then(|ws| {
                    let mut a = testdeck_core::workspace::adopt::Adoption::adopt(&ws, &file, &to)
                        .map_err(|e| e.to_string())?;
                    a.case.write_plan(root).map_err(|e| e.to_string())?;
                    Ok(Box::new(a))
                });
            let set = |n: &str| std::env::var(n).is_ok_and(|v| !v.trim().is_empty());
            Some(FeatureResult::AdoptPlanned {
                adoption,
                editor: set("VISUAL") || set("EDITOR"),
            })
        }
        FeatureWork::AdoptMove(a) => Some(FeatureResult::AdoptDone(
            a.case
                .write_test(root)
                .and_then(|()| a.move_runs(root))
                .map(|()| a)
                .map_err(|e| e.to_string()),
        )),
        // the details' `meta.json`, read beside the loop (the index keeps its summary)
        FeatureWork::RunMeta(r) => Some(FeatureResult::RunMeta {
            meta: r.details(root).map(Box::new),
            run: r.path,
        }),
        FeatureWork::Open(job) => Some(FeatureResult::Opened {
            opening: open_artifact(root, &job),
            job,
        }),
    }
}

/// `o`: the artifact copied for its opener, checked again beneath its run
/// folder as it is copied (the list is older than the key, and the opener
/// resolves its path later, when a link swapped in would lead it anywhere);
/// then which opener runs is the core's decision.
fn open_artifact(root: &Path, job: &crate::feature_work::OpenArtifact) -> Opening {
    use testdeck_core::workspace::openers::{self, Decision};
    let copy = match testdeck_core::workspace::read::checked_copy(&job.file, &job.within) {
        Ok(c) => c,
        Err(e) => {
            let shown = testdeck_core::sanitize::escape(&job.shown);
            return Opening::Refused(format!("not opened: {shown}: {e}"));
        }
    };
    // absolute: the opener runs in the workspace root, not in testdeck's directory
    let copy = std::path::absolute(&copy).unwrap_or(copy);
    let target = copy.to_string_lossy().into_owned();
    match openers::decide(root, &job.places, job.slot) {
        Decision::Nothing => {
            discard(&copy);
            Opening::Nothing
        }
        Decision::Run(mut argv) => {
            argv.push(target);
            Opening::Run(argv)
        }
        Decision::Ask { argv, file } => Opening::Ask { argv, file, target },
    }
}

/// Remove the private copy made for an opener that will not run (its folder
/// holds only it).
pub(crate) fn discard(copy: &Path) {
    if let Some(dir) = copy.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn read_report(root: &Path, file: &str) -> Result<String, String> {
    use testdeck_core::workspace::read;
    let p = root.join(file);
    // the report stays in its domain's folder under tests/report (no link out)
    let within = p.parent().and_then(Path::parent).unwrap_or(root);
    match read::read_lossy(&p, Some(within), read::Kind::Markdown) {
        Ok(text) => Ok(text),
        Err(e) if e.is_missing() => Err(format!("{file}: no report for this domain")),
        Err(e) => Err(format!("{file}: {e}")),
    }
}

/// The watch thread, and threads for jobs.
#[derive(Default)]
pub(crate) struct Jobs {
    watch: Option<(Cancel, std::thread::JoinHandle<()>)>,
    /// Watches being stopped (joined before the app ends, so no rerun outlives it).
    stopping: Vec<std::thread::JoinHandle<()>>,
}

impl Jobs {
    pub fn run(
        &mut self,
        job: FeatureWork,
        root: &Path,
        cache: Option<&Path>,
        send: ActionSink,
        changes: Option<testdeck_core::workspace::watch::Subscription>,
    ) {
        match job {
            FeatureWork::Watch(generation, opts) => {
                if let Some((c, h)) = self.watch.take() {
                    c.cancel();
                    self.stopping.push(h);
                }
                let Some(mut opts) = opts else { return };
                // the import graph's index of the history cache, when the cockpit keeps one
                if opts.cache.is_none() {
                    opts.cache = cache.map(Path::to_path_buf);
                }
                let Some(changes) = changes else {
                    send(Action::WorkDone(Box::new(FeatureResult::WatchEnded {
                        generation,
                        error: Some("the workspace is not watched".into()),
                    })));
                    return;
                };
                let cancel = Cancel::default();
                let stop = cancel.clone();
                let root = root.to_path_buf();
                let h = std::thread::spawn(move || {
                    let s = send.clone();
                    let sink: testdeck_exec::watch_mode::WatchSink = Arc::new(move |ev| {
                        // a rerun's run reaches the pane through its follow, as a launch's
                        if matches!(
                            ev,
                            testdeck_exec::watch_mode::WatchEvent::Exec(
                                testdeck_exec::ExecEvent::Timeline { .. }
                            )
                        ) {
                            return;
                        }
                        s(Action::WorkDone(Box::new(FeatureResult::Watch {
                            generation,
                            event: Box::new(ev),
                        })));
                    });
                    let r = testdeck_exec::watch_mode::watch(&root, &opts, &sink, &stop, &changes);
                    send(Action::WorkDone(Box::new(FeatureResult::WatchEnded {
                        generation,
                        error: r.err(),
                    })));
                });
                self.watch = Some((cancel, h));
            }
            other => {
                let root = root.to_path_buf();
                let cache = cache.map(Path::to_path_buf);
                std::thread::spawn(move || {
                    if let Some(d) = run_now_in(other, &root, cache.as_deref()) {
                        send(Action::WorkDone(Box::new(d)));
                    }
                });
            }
        }
    }

    /// Stop the watch and wait for its rerun's processes to be gone.
    pub(crate) fn stop(&mut self) {
        if let Some((c, h)) = self.watch.take() {
            c.cancel();
            self.stopping.push(h);
        }
        for h in self.stopping.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.stop();
    }
}
