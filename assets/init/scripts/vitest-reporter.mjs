// A vitest reporter that streams the case's semantic events into the run folder
// the workflow created (RAW_LOG_DIR): one `step` per test() as it ends, the
// harness's assertion and signal annotations as they happen, and an `error`
// for anything that stopped the file from running.
import { emit } from './lib/raw-log.mjs';

const dir = process.env.RAW_LOG_DIR;

/** `s2 reserves stock` → id `s2`, name `reserves stock`. */
function stepOf(name, n) {
  const m = /^(s\d+)\s+(.*)$/.exec(name);
  return m ? { id: m[1], name: m[2] } : { id: `s${n}`, name };
}

function errorData(e) {
  if (!e) return null;
  return {
    message: e.message ?? String(e),
    diff: e.diff ?? null,
    expected: e.expected ?? null,
    actual: e.actual ?? null,
    stack: e.stack ?? null,
  };
}

export default class RawLogReporter {
  constructor() {
    this.steps = 0;
  }

  onTestCaseAnnotate(test, annotation) {
    if (!dir) return;
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
      emit(dir, 'assertion', body.name, status, body.message, data, body.id);
    } else {
      emit(dir, 'signal', body.name ?? 'signal/console', 'info', body.message ?? '', body.data ?? null);
    }
  }

  onTestCaseResult(test) {
    if (!dir) return;
    this.steps += 1;
    const { id, name } = stepOf(test.name, this.steps);
    const result = test.result();
    const status = { passed: 'ok', failed: 'failed', skipped: 'skipped' }[result.state] ?? 'info';
    const data = { durationMs: Math.round(test.diagnostic()?.duration ?? 0) };
    if (result.state === 'failed') data.error = errorData(result.errors?.[0]);
    if (result.state === 'skipped' && result.note) data.note = result.note;
    emit(dir, 'step', name, status, `step ${name} ${status === 'ok' ? 'done' : status}`, data, id);
  }

  onTestRunEnd(testModules, unhandledErrors) {
    if (!dir) return;
    for (const m of testModules) {
      for (const e of m.errors()) {
        emit(dir, 'error', 'runner/module-error', 'failed', 'the test file did not run to its end', errorData(e));
      }
    }
    for (const e of unhandledErrors) {
      emit(dir, 'error', 'runner/unhandled-error', 'failed', 'an error was not handled by the test', errorData(e));
    }
  }
}
