// A vitest reporter that writes each case file's run (seed 000 §5) while vitest
// runs them all in one process: the workflow lists the selected case files in
// TESTDECK_WORK/cases.json; as a file starts its run folder opens, each test is
// a `step` when it ends, each failure an `assertion` / `error` event after it
// (docs/per-test-events.md), the harness's Oracle assertions and signals as
// they happen; as the file ends its run closes (run/finish with the file's
// test counts, meta.json last).
import path from 'node:path';
import { emit, finishRun, firstLine, frameIn, readNote, startRun, TestLog, writeNote } from './lib/raw-log.mjs';

const work = process.env.TESTDECK_WORK;
const root = process.env.TESTDECK_ROOT ?? process.cwd();

/** A failure as the event's `data.error` and where it was raised. */
function failure(log, e, file) {
  const at =
    frameIn(root, e.stack ?? '', file) ??
    (e.stacks ?? [])
      .map((s) => ({ file: s.file, line: s.line, column: s.column }))
      .find((s) => s.file?.startsWith(root) && !s.file.includes('/node_modules/'));
  return {
    message: e.message ?? String(e),
    expected: e.expected,
    actual: e.actual,
    diff: e.diff,
    assertion: e.name === 'AssertionError',
    location: at ? log.location(at.file, at.line, at.column) : null,
    stack: e.stack ?? null,
  };
}

/** The titles of a test, its outermost `describe` first. */
function titlesOf(test) {
  const out = [test.name];
  for (let p = test.parent; p && p.type === 'suite'; p = p.parent) out.unshift(p.name);
  return out;
}

export default class RawLogReporter {
  constructor() {
    const given = work ? readNote(work, 'cases.json') : null;
    this.info = given?.info ?? {};
    /** the selected cases by their absolute file */
    this.cases = new Map((given?.cases ?? []).map((c) => [path.resolve(c.abs), c]));
    /** the open runs by module id */
    this.runs = new Map();
    /** the runs ended: file → {dir, passed} */
    this.ended = {};
  }

  /** The open run of a test file (opened at its first word). */
  runOf(moduleId) {
    if (this.runs.has(moduleId)) return this.runs.get(moduleId);
    const c = this.cases.get(path.resolve(moduleId));
    if (!c || this.ended[c.file]) return null;
    const run = startRun(root, c, this.info);
    run.log = new TestLog(run.dir, root);
    run.pid = process.pid;
    this.runs.set(moduleId, run);
    return run;
  }

  onTestModuleStart(module) {
    this.runOf(module.moduleId);
  }

  onTestCaseAnnotate(test, annotation) {
    const run = this.runOf(test.module.moduleId);
    if (!run) return;
    let body;
    try {
      body = JSON.parse(annotation.message);
    } catch {
      body = { name: 'signal/console', message: annotation.message };
    }
    if (annotation.type === 'assertion') {
      const status = body.ok ? 'ok' : 'failed';
      const data = { expected: body.expected, actual: body.actual };
      if (body.error) Object.assign(data, { error: body.error, location: body.location ?? null });
      emit(run.dir, 'assertion', body.name, status, body.message, data, body.id);
    } else {
      emit(run.dir, 'signal', body.name ?? 'signal/console', 'info', body.message ?? '', body.data ?? null);
    }
  }

  onTestCaseResult(test) {
    const run = this.runOf(test.module.moduleId);
    if (!run) return;
    const result = test.result();
    const status = { passed: 'ok', failed: 'failed', skipped: 'skipped' }[result.state] ?? 'skipped';
    const file = test.module.moduleId;
    const loc = test.location;
    const diag = test.diagnostic();
    run.log.test({
      titles: titlesOf(test),
      status,
      location: run.log.location(file, loc?.line, loc?.column),
      durationMs: diag?.duration ?? 0,
      retry: diag?.retryCount ?? 0,
      note: result.note,
      errors: result.state === 'failed' ? (result.errors ?? []).map((e) => failure(run.log, e, file)) : [],
    });
  }

  onTestModuleEnd(module) {
    const run = this.runOf(module.moduleId);
    if (!run) return;
    let noTests = null;
    for (const e of module.errors()) {
      const f = failure(run.log, e, module.moduleId);
      noTests ??= firstLine(f.message);
      emit(run.dir, 'error', 'runner/module-error', 'failed', firstLine(f.message) || 'the test file did not run to its end', {
        error: { message: f.message },
        location: f.location,
        stack: f.stack,
      });
    }
    const { counts } = run.log;
    const ok = counts.failed === 0 && !module.errors().length && module.state() !== 'failed';
    const tests = { ...counts, noTests: counts.total ? null : (noTests ?? 'No test found in the file.') };
    const passed = finishRun(root, run, { ok, tests, exit: { pid: process.pid, running: true } });
    this.runs.delete(module.moduleId);
    this.ended[run.c.file] = { dir: run.dir, passed };
    writeNote('runs.json', this.ended);
  }

  onTestRunEnd(testModules, unhandledErrors) {
    if (!work) return;
    // an error no test file owns: said on the terminal by vitest, and kept for
    // the files that never ran
    const first = unhandledErrors[0];
    if (first) writeNote('no-tests.json', firstLine(first.message ?? String(first)));
    else if (!testModules.length) writeNote('no-tests.json', 'No test files found.');
  }
}
