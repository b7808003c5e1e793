// A Playwright reporter that streams the case's semantic events into the run
// folder the workflow created (RAW_LOG_DIR), as docs/per-test-events.md fixes
// them: one `step` per test as it ends (its title path, location, duration,
// retry, project), its test.step()s after it, each failure an `assertion` /
// `error` event, the spec's Oracle assertions (`expect(…, 'a1 name')`) and the
// page's console lines as they happen, and each test's own trace and failure
// screenshot copied under artifacts/tests/<its step id>/.
import fs from 'node:fs';
import path from 'node:path';
import { emit, firstLine, frameIn, plain, readNote, skipSignal, TestLog, writeNote } from './lib/raw-log.mjs';

const dir = process.env.RAW_LOG_DIR;
const root = process.env.TESTDECK_ROOT ?? process.cwd();

/** `Expected…: x` / `Received…: y` of an expect() message, where it says them. */
function expectedActual(message) {
  const lines = plain(message).split('\n');
  const pick = (word) => {
    const l = lines.find((x) => new RegExp(`^\\s*${word}[^:]*:\\s`).test(x));
    return l === undefined ? undefined : l.slice(l.indexOf(':') + 1).trim();
  };
  return { expected: pick('Expected'), actual: pick('Received') };
}

/** The titles of a test below its file, its outermost `describe` first. */
function titlesOf(test) {
  const out = [test.title];
  for (let s = test.parent; s && s.type === 'describe'; s = s.parent) out.unshift(s.title);
  return out;
}

export default class RawLogReporter {
  constructor() {
    this.log = dir ? new TestLog(dir, root) : null;
    /** per test result: its test.steps in the order they began */
    this.steps = new Map();
    /** per test result: the first Oracle assertion (`aN`) that failed in it */
    this.oracle = new Map();
    this.globalError = null;
  }

  // this reporter says each test on the terminal, so Playwright adds none of
  // its own (whose lines would name the work folder, gone once the run ends)
  printsToStdio() {
    return Boolean(dir);
  }

  say(line) {
    process.stdout.write(`${line}\n`);
  }

  onBegin() {
    if (!dir) return;
    // the projects testdeck's config left out (their browser is not installed)
    const work = process.env.TESTDECK_WORK;
    const decisions = (work && readNote(work, 'projects.json')) || [];
    for (const d of decisions) {
      if (!d.run) skipSignal(dir, d);
    }
    // no project can run: the workflow says so as the run's environment error
    this.noProject = decisions.length > 0 && !decisions.some((d) => d.run && !d.setup);
  }

  onStepBegin(test, result, step) {
    if (step.category !== 'test.step') return;
    if (!this.steps.has(result)) this.steps.set(result, []);
    this.steps.get(result).push(step);
  }

  onStepEnd(test, result, step) {
    if (!dir || step.category !== 'expect') return;
    // an Oracle assertion of the spec: expect(…, 'a1 name')
    const m = /^(a\d+)\s+(.*)$/.exec(step.title);
    if (!m) return;
    const status = step.error ? 'failed' : 'ok';
    let data = null;
    if (step.error) {
      const at = step.error.location ?? step.location ?? null;
      // the Oracle's own record (the failure digest reads it); the test's
      // failure event after its step carries the same error for the test
      data = {
        error: { message: step.error.message ?? null, stack: step.error.stack ?? null },
        location: at ? this.log.location(at.file, at.line, at.column) : null,
      };
    }
    emit(dir, 'assertion', m[2], status, `${m[2]} ${step.error ? 'did not hold' : 'held'}`, data, m[1]);
    // the test's first failure event is this Oracle assertion
    if (step.error && !this.oracle.has(result)) this.oracle.set(result, m[1]);
  }

  onStdOut(chunk, test) {
    if (!dir || !test) return;
    emit(dir, 'signal', 'signal/console', 'info', String(chunk).trimEnd());
  }

  onTestEnd(test, result) {
    if (!this.log) return;
    const outcome = test.outcome();
    const status = result.status === 'skipped' ? 'skipped' : result.status === 'passed' || outcome === 'expected' ? 'ok' : 'failed';
    const file = test.location.file;
    const loc = (l) => (l ? this.log.location(l.file, l.line, l.column) : null);
    const steps = (this.steps.get(result) ?? []).map((s) => ({
      title: s.title,
      status: s.error ? 'failed' : 'ok',
      location: loc(s.location),
      durationMs: s.duration,
    }));
    this.steps.delete(result);
    const errors =
      status === 'failed'
        ? result.errors.map((e) => {
            const message = e.message ?? e.value ?? 'failed';
            const at = e.location ?? frameIn(root, e.stack ?? '', file);
            const { expected, actual } = expectedActual(message);
            return {
              message,
              expected,
              actual,
              assertion: /expect\(/.test(firstLine(message)) || expected !== undefined,
              location: loc(at),
              stack: e.stack ?? null,
            };
          })
        : [];
    const note = result.annotations?.find((a) => a.type === 'skip')?.description;
    // a failed attempt that is retried is not the test's final word
    const final = status !== 'failed' || result.retry >= test.retries;
    const t = this.log.test({
      titles: titlesOf(test),
      status,
      location: loc(test.location),
      durationMs: result.duration,
      retry: result.retry,
      project: test.parent.project()?.name ?? '',
      note,
      errors,
      steps,
      final,
    });
    const kept = this.keep(t, result, status === 'failed', this.oracle.get(result));
    this.oracle.delete(result);
    const mark = { ok: '✓', failed: '✗', skipped: '-' }[status];
    const where = t.location ? ` ${t.location.file}:${t.location.line}` : '';
    this.say(`  ${mark} ${t.id} ${t.name}${where} (${Math.round(result.duration)} ms)${result.retry ? ` retry ${result.retry}` : ''}`);
    for (const e of result.errors.filter(() => status === 'failed')) {
      for (const l of plain(e.message ?? e.value ?? '').split('\n').slice(0, 12)) this.say(`      ${l}`);
      if (e.snippet) for (const l of plain(e.snippet).split('\n')) this.say(`      ${l}`);
    }
    for (const rel of kept) this.say(`      ${path.relative(root, path.join(dir, rel))}`);
  }

  /** The test's own trace (always, seed 000 §6) and, when it failed, its
   * failure screenshot, copied into the run folder while its files exist. */
  keep(t, result, failed, oracle) {
    const out = [];
    const folder = result.retry ? `${t.id}-retry${result.retry}` : t.id;
    const suffix = result.retry ? `-retry${result.retry}` : '';
    const copy = (from, name) => {
      const rel = `artifacts/tests/${folder}/${name}`;
      fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
      fs.copyFileSync(from, path.join(dir, rel));
      return rel;
    };
    const there = result.attachments.filter((a) => a.path && fs.existsSync(a.path));
    const shot = failed && there.find((a) => a.name === 'screenshot' && a.contentType === 'image/png');
    if (shot) {
      const p = copy(shot.path, 'failure.png');
      out.push(p);
      const refs = { stepId: t.id };
      // the test's first failure event: a failed Oracle assertion, else its first error
      const first = oracle ?? t.errorIds[0];
      if (first) refs.assertionId = first;
      emit(dir, 'artifact', 'artifact/screenshot', 'info', 'failure screenshot written', { kind: 'screenshot', path: p, refs }, `failure-${t.id}${suffix}`);
    }
    const trace = there.find((a) => a.name === 'trace');
    if (trace) {
      const p = copy(trace.path, 'trace.zip');
      if (failed) out.push(p);
      emit(dir, 'artifact', 'artifact/trace', 'info', 'trace written', { kind: 'trace', path: p, refs: { stepId: t.id } }, `trace-${t.id}${suffix}`);
    }
    return out;
  }

  onError(error) {
    if (!dir) return;
    const message = error.message ?? String(error);
    if (this.noProject && /No tests found/.test(message)) return;
    this.globalError ??= firstLine(message);
    const at = error.location ?? frameIn(root, error.stack ?? '', null);
    emit(dir, 'error', 'runner/error', 'failed', firstLine(message) || 'Playwright reported an error outside a test', {
      error: { message },
      location: at ? this.log.location(at.file, at.line, at.column) : null,
      stack: error.stack ?? null,
    });
  }

  onEnd() {
    if (!this.log) return;
    const { counts } = this.log;
    this.say(`  ${counts.total} tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    writeNote('tests.json', { ...counts, noTests: counts.total ? null : (this.globalError ?? 'No tests found.') });
  }
}
