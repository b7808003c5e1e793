// A Playwright reporter that streams the case's semantic events into the run
// folder the workflow created (RAW_LOG_DIR): each test.step() as it ends, the
// page's console lines as signals, and the test's attachments (trace,
// screenshot) for the workflow to file under artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { emit } from './lib/raw-log.mjs';

const dir = process.env.RAW_LOG_DIR;

/** A failed step's error with its stack, and where in the spec it failed. */
function errorData(step) {
  const e = step.error;
  const at = e.location ?? step.location ?? null;
  return {
    error: { message: e.message ?? null, stack: e.stack ?? null },
    location: at ? { file: at.file, line: at.line } : null,
  };
}

export default class RawLogReporter {
  constructor() {
    this.steps = 0;
    this.assertions = 0;
    this.lastStep = null;
  }

  printsToStdio() {
    return false;
  }

  /** The id and name of a test.step(): `s2 check out` → `s2`, `check out`. */
  stepOf(step) {
    if (!this.ids) this.ids = new Map();
    if (!this.ids.has(step)) {
      this.steps += 1;
      const m = /^(s\d+)\s+(.*)$/.exec(step.title);
      this.ids.set(step, m ? { id: m[1], name: m[2] } : { id: `s${this.steps}`, name: step.title });
    }
    return this.ids.get(step);
  }

  onStepBegin(test, result, step) {
    // the step an assertion belongs to is the one open when it ends
    if (step.category === 'test.step') this.lastStep = this.stepOf(step).id;
  }

  onStepEnd(test, result, step) {
    if (!dir) return;
    if (step.category === 'test.step') {
      const { id, name } = this.stepOf(step);
      const status = step.error ? 'failed' : 'ok';
      const data = { durationMs: step.duration };
      if (step.error) Object.assign(data, errorData(step));
      emit(dir, 'step', name, status, `step ${name} ${step.error ? 'failed' : 'done'}`, data, id);
    } else if (step.category === 'expect') {
      // an Oracle assertion of the spec: expect(…, 'a1 name')
      const m = /^(a\d+)\s+(.*)$/.exec(step.title);
      if (!m) return;
      this.assertions += 1;
      const status = step.error ? 'failed' : 'ok';
      const data = step.error ? errorData(step) : null;
      emit(dir, 'assertion', m[2], status, `${m[2]} ${step.error ? 'did not hold' : 'held'}`, data, m[1]);
      if (step.error) this.failed = { assertionId: m[1], stepId: this.lastStep };
    }
  }

  onStdOut(chunk, test) {
    if (!dir || !test) return;
    emit(dir, 'signal', 'signal/console', 'info', String(chunk).trimEnd());
  }

  onTestEnd(test, result) {
    if (!dir) return;
    // the workflow copies these into artifacts/ and lists them in artifacts.json
    const attachments = result.attachments
      .filter((a) => a.path && fs.existsSync(a.path))
      .map((a) => ({ name: a.name, contentType: a.contentType, path: path.resolve(a.path) }));
    const out = { status: result.status, attachments, failed: this.failed ?? null, lastStep: this.lastStep };
    if (result.status !== 'passed' && result.status !== 'skipped' && !this.failed) {
      const msg = result.error?.message ?? `test ${result.status}`;
      emit(dir, 'error', 'runner/test-error', 'failed', 'the spec stopped before its Oracle', { message: msg });
    }
    fs.writeFileSync(path.join(dir, '.playwright-result.json'), JSON.stringify(out));
  }

  onError(error) {
    if (!dir) return;
    emit(dir, 'error', 'runner/error', 'failed', 'Playwright reported an error outside a test', {
      message: error.message ?? String(error),
    });
  }
}
