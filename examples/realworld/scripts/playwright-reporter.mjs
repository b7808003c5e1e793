// A Playwright reporter that writes each case file's run (seed 000 §5) while
// ONE Playwright process runs them all: the workflow lists the selected spec
// files in TESTDECK_WORK/cases.json; a file's run folder opens when its first
// test begins, and, as docs/per-test-events.md fixes them, gets one `step` per
// test as it ends (its title path, location, duration, retry, project), its
// test.step()s after it, each failure an `assertion` / `error` event, the
// spec's Oracle assertions (`expect(…, 'a1 name')`) and the page's console
// lines as they happen, and each test's own trace and failure screenshot
// copied under artifacts/tests/<its step id>/. The run closes (meta.json last)
// when the file's last test (every retry, every project) has ended; a failed
// one once Playwright's HTML report is written, which it keeps.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { emit, finishRun, firstLine, frameIn, plain, readNote, skipSignal, startRun, TestLog, writeNote } from './lib/raw-log.mjs';

const work = process.env.TESTDECK_WORK;
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
    const given = work ? readNote(work, 'cases.json') : null;
    this.active = Boolean(given);
    this.info = given?.info ?? {};
    /** where Playwright's HTML report is written (kept for a failed run) */
    this.htmlDir = given?.htmlDir ?? null;
    /** the selected cases by their absolute file */
    this.cases = new Map((given?.cases ?? []).map((c) => [path.resolve(c.abs), c]));
    /** the open runs by absolute file */
    this.runs = new Map();
    /** per file: its tests not ended yet (each project's, retries aside) */
    this.left = new Map();
    /** the failed runs whose last test ended, closed once the HTML report is there */
    this.waiting = [];
    /** the runs ended: file → {dir, passed} */
    this.ended = {};
    /** per file: the errors Playwright raised in it outside a test (it did not load) */
    this.fileErrors = new Map();
    /** per test result: its test.steps in the order they began */
    this.steps = new Map();
    /** per test result: the first Oracle assertion (`aN`) that failed in it */
    this.oracle = new Map();
    this.globalError = null;
    /** the last lines Playwright's own processes (its webServer) wrote outside a test */
    this.serverLines = [];
    this.decisions = [];
    this.counts = { total: 0, passed: 0, failed: 0, skipped: 0 };
  }

  // this reporter says each test on the terminal, so Playwright adds none of
  // its own (whose lines would name the work folder, gone once the run ends)
  printsToStdio() {
    return this.active;
  }

  say(line) {
    process.stdout.write(`${line}\n`);
  }

  onBegin(config, suite) {
    if (!this.active) return;
    // the projects testdeck's config left out (their browser is not installed)
    this.decisions = readNote(work, 'projects.json') || [];
    // no project can run: the workflow says so as the run's environment error
    this.noProject = this.decisions.length > 0 && !this.decisions.some((d) => d.run && !d.setup);
    for (const t of suite.allTests()) {
      const file = path.resolve(t.location.file);
      if (this.cases.has(file)) this.left.set(file, (this.left.get(file) ?? 0) + 1);
    }
  }

  /** The open run of a selected spec file (opened at its first word). */
  runOf(file) {
    const abs = path.resolve(file);
    if (this.runs.has(abs)) return this.runs.get(abs);
    const c = this.cases.get(abs);
    if (!c || this.ended[c.file]) return null;
    const run = startRun(root, c, this.info);
    run.log = new TestLog(run.dir, root);
    run.abs = abs;
    run.attached = [];
    for (const d of this.decisions) {
      if (!d.run) skipSignal(run.dir, d);
    }
    this.runs.set(abs, run);
    return run;
  }

  onTestBegin(test) {
    this.runOf(test.location.file);
  }

  onStepBegin(test, result, step) {
    if (step.category !== 'test.step') return;
    if (!this.steps.has(result)) this.steps.set(result, []);
    this.steps.get(result).push(step);
  }

  onStepEnd(test, result, step) {
    if (step.category !== 'expect') return;
    const run = this.runOf(test.location.file);
    if (!run) return;
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
        location: at ? run.log.location(at.file, at.line, at.column) : null,
      };
    }
    emit(run.dir, 'assertion', m[2], status, `${m[2]} ${step.error ? 'did not hold' : 'held'}`, data, m[1]);
    // the test's first failure event is this Oracle assertion
    if (step.error && !this.oracle.has(result)) this.oracle.set(result, m[1]);
  }

  // outside a test this is the webServer speaking (Playwright pipes its
  // stderr here): passed on to the terminal, its last lines kept as the why
  // of a server that does not start
  onStdErr(chunk, test) {
    if (test || !this.active) return;
    const text = String(chunk);
    process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    for (const line of plain(text).split('\n')) {
      if (line.trim()) this.serverLines.push(line.trim());
    }
    this.serverLines.splice(0, Math.max(0, this.serverLines.length - 20));
  }

  onStdOut(chunk, test) {
    if (!test) return;
    const run = this.runOf(test.location.file);
    if (run) emit(run.dir, 'signal', 'signal/console', 'info', String(chunk).trimEnd());
  }

  onTestEnd(test, result) {
    const run = this.runOf(test.location.file);
    if (!run) return;
    const outcome = test.outcome();
    const status = result.status === 'skipped' ? 'skipped' : result.status === 'passed' || outcome === 'expected' ? 'ok' : 'failed';
    const file = test.location.file;
    const loc = (l) => (l ? run.log.location(l.file, l.line, l.column) : null);
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
    const t = run.log.test({
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
    const kept = this.keep(run.dir, t, result, status === 'failed', this.oracle.get(result));
    // the files the HTML report keeps of this test (a failed run keeps those)
    for (const a of result.attachments) if (a.path) run.attached.push(a.path);
    this.oracle.delete(result);
    const mark = { ok: '✓', failed: '✗', skipped: '-' }[status];
    const where = t.location ? ` ${t.location.file}:${t.location.line}` : '';
    this.say(`  ${mark} ${t.id} ${t.name}${where} (${Math.round(result.duration)} ms)${result.retry ? ` retry ${result.retry}` : ''}`);
    for (const e of result.errors.filter(() => status === 'failed')) {
      for (const l of plain(e.message ?? e.value ?? '').split('\n').slice(0, 12)) this.say(`      ${l}`);
      if (e.snippet) for (const l of plain(e.snippet).split('\n')) this.say(`      ${l}`);
    }
    for (const rel of kept) this.say(`      ${path.relative(root, path.join(run.dir, rel))}`);
    if (!final) return;
    // the file's last test (every project's, after its retries): its run ends
    const left = (this.left.get(run.abs) ?? 1) - 1;
    this.left.set(run.abs, left);
    if (left <= 0) this.close(run, false);
  }

  /** The test's own trace (always, seed 000 §6) and, when it failed, its
   * failure screenshot, copied into the run folder while its files exist. */
  keep(dir, t, result, failed, oracle) {
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

  /** A file's run ends: a passed one at once; a failed one waits for the HTML
   * report (seed 000 §6), written when Playwright ends (`atEnd`). */
  close(run, atEnd) {
    const { counts } = run.log;
    const ok = counts.failed === 0 && !run.incomplete;
    if (!ok && !atEnd) {
      // while other specs of the launch still run, the timeline says why the
      // run stays open after its last test
      const others = [...this.left].some(([file, n]) => file !== run.abs && n > 0);
      if (!others) {
        this.waiting.push(run);
        return;
      }
      const { total, passed, failed, skipped } = counts;
      const message = `its ${total} test${total === 1 ? '' : 's'} ended (${failed} failed); the run ends with Playwright's HTML report, written when Playwright ends`;
      emit(run.dir, 'signal', 'runner/awaiting-report', 'info', message, { tests: { total, passed, failed, skipped } });
      this.waiting.push(run);
      return;
    }
    this.runs.delete(run.abs);
    if (!ok && this.htmlDir && fs.existsSync(path.join(this.htmlDir, 'index.html'))) {
      // the report of the whole launch, copied into the failed case's run
      // with the attachments of this file's tests only (the report names
      // each by its content's SHA-1 and its extension)
      const rel = 'artifacts/playwright/report';
      const own = new Set();
      for (const f of run.attached) {
        try {
          own.add(crypto.createHash('sha1').update(fs.readFileSync(f)).digest('hex') + path.extname(f));
        } catch {
          // gone: the report has no copy of it either
        }
      }
      const data = path.join(this.htmlDir, 'data');
      fs.cpSync(this.htmlDir, path.join(run.dir, rel), {
        recursive: true,
        filter: (src) => path.dirname(src) !== data || own.has(path.basename(src)),
      });
      const item = { kind: 'playwright-report', path: `${rel}/index.html`, refs: {} };
      emit(run.dir, 'artifact', 'artifact/playwright-report', 'info', 'the HTML report written', item, 'playwright-report');
    }
    const tests = { ...counts, noTests: counts.total ? null : (run.noTests ?? this.globalError ?? 'No tests found.') };
    const passed = finishRun(root, run, { ok, tests, exit: { pid: process.pid, running: true } });
    for (const k of Object.keys(this.counts)) this.counts[k] += counts[k];
    this.ended[run.c.file] = { dir: run.dir, passed };
    writeNote('runs.json', this.ended);
  }

  onError(error) {
    if (!this.active) return;
    const message = error.message ?? String(error);
    if (this.noProject && /No tests found/.test(message)) return;
    const at = error.location ?? frameIn(root, error.stack ?? '', null);
    const file = at?.file ? path.resolve(at.file) : null;
    if (file && this.cases.has(file)) {
      // the spec did not load (a syntax error, a bad import): its own run says so
      if (!this.fileErrors.has(file)) this.fileErrors.set(file, []);
      this.fileErrors.get(file).push({ message, at, stack: error.stack ?? null });
      return;
    }
    this.globalError ??= firstLine(message);
    if (/config\.webServer/.test(message)) {
      // the project's web server did not come up: nothing could run, an
      // environment failure, with what the server said last
      const said = this.serverLines.slice(-3).join(' | ');
      writeNote('environment.json', `the web server did not start (${firstLine(message)})${said ? `; it said: ${said}` : ''}`);
    }
    // every run still open hears it; the files never started end with it
    for (const run of this.runs.values()) {
      emit(run.dir, 'error', 'runner/error', 'failed', firstLine(message) || 'Playwright reported an error outside a test', {
        error: { message },
        location: at ? run.log.location(at.file, at.line, at.column) : null,
        stack: error.stack ?? null,
      });
      run.incomplete = true;
    }
    writeNote('no-tests.json', this.globalError);
  }

  // after the HTML reporter's onEnd (the workflow's config lists it first): the
  // report is written, the failed runs are closed with it
  onEnd() {
    if (!this.active) return;
    for (const [file, errors] of this.fileErrors) {
      const run = this.runOf(file);
      if (!run) continue;
      for (const e of errors) {
        emit(run.dir, 'error', 'runner/error', 'failed', firstLine(e.message) || 'the spec file did not load', {
          error: { message: e.message },
          location: e.at ? run.log.location(e.at.file, e.at.line, e.at.column) : null,
          stack: e.stack,
        });
      }
      run.noTests = firstLine(errors[0].message);
      run.incomplete = true;
      // Playwright runs no file when one does not load: the others say which
      if (!this.globalError) {
        this.globalError = `${path.relative(root, file)} did not load: ${run.noTests}`;
        writeNote('no-tests.json', this.globalError);
      }
    }
    for (const run of this.waiting.splice(0)) this.close(run, true);
    for (const run of [...this.runs.values()]) {
      // Playwright stopped before the file's last test ended
      const left = this.left.get(run.abs) ?? 0;
      if (left > 0) {
        const message = `Playwright ended before ${left} test${left === 1 ? '' : 's'} of this file ran`;
        emit(run.dir, 'error', 'runner/incomplete', 'failed', this.globalError ? `${message}: ${this.globalError}` : message, { notRun: left });
        run.incomplete = true;
      }
      this.close(run, true);
    }
    const c = this.counts;
    this.say(`  ${c.total} tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  }
}
