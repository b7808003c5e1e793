// The raw-log contract of seed 000 §5, written by the workflow and the two
// reporters: a run folder per case run, timeline.jsonl appended line by line as
// the case runs (so a follower sees it live), meta.json written last.
import fs from 'node:fs';
import path from 'node:path';

/** YYYYMMDD-HHmmss-SSS in UTC. */
export function runIdOf(date) {
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return (
    `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}-` +
    `${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}-` +
    p(date.getUTCMilliseconds(), 3)
  );
}

/** A new run folder tests/logs/<scope>/<caseId>/<runId>, unique even within one millisecond. */
export function createRun(root, scope, caseId) {
  for (;;) {
    const started = new Date();
    const runId = runIdOf(started);
    const dir = path.join(root, 'tests', 'logs', scope, caseId, runId);
    if (fs.existsSync(dir)) {
      const until = Date.now() + 2;
      while (Date.now() < until) {
        // a millisecond later is another runId
      }
      continue;
    }
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'timeline.jsonl'), '');
    return { dir, runId, started };
  }
}

/** Append one event line to the run's timeline (whole lines only, at once). */
export function emit(dir, type, name, status, message, data = null, id = undefined) {
  const ev = { ts: new Date().toISOString(), type, name, status };
  if (id !== undefined) ev.id = id;
  ev.message = message;
  ev.data = data;
  fs.appendFileSync(path.join(dir, 'timeline.jsonl'), `${JSON.stringify(ev)}\n`);
}

/** Events of the timeline so far (to count steps, assertions, errors). */
export function readTimeline(dir) {
  const text = fs.readFileSync(path.join(dir, 'timeline.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** Write a file through a temp file and a rename: a reader never sees half of it. */
export function writeAtomic(file, text) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Every test of a file as seed 000 §5 events (docs/per-test-events.md): the
 * ids, names, locations and failure events both reporters write. */
export class TestLog {
  constructor(dir, root) {
    this.dir = dir;
    this.root = root;
    this.n = 0;
    this.counts = { total: 0, passed: 0, failed: 0, skipped: 0 };
  }

  /** `{file, line, column}` with `file` relative to the workspace root. */
  location(file, line, column) {
    if (!file) return null;
    let f = String(file).replace(/^file:\/\//, '');
    if (path.isAbsolute(f)) f = path.relative(this.root, f);
    return { file: f.split(path.sep).join('/'), line: line ?? null, column: column ?? null };
  }

  /** The next test's step id: `t<N>`, or the `sN` its title starts with. */
  nextId(title) {
    this.n += 1;
    const m = /^(s\d+)\s+/.exec(title);
    return m ? m[1] : `t${this.n}`;
  }

  /** One ended test: its step, then (Playwright) its test.steps, then one
   * failure event per error. Returns its step id. */
  test({ titles, status, location, durationMs, retry, project, note, errors, steps, final = true }) {
    const last = titles[titles.length - 1] ?? '';
    const id = this.nextId(last);
    const shown = [...titles.slice(0, -1), last.replace(/^s\d+\s+/, '')];
    const name = shown.join(' › ');
    const errs = errors ?? [];
    const first = errs.length ? firstLine(errs[0].message) : '';
    const message =
      status === 'ok' ? 'passed' : status === 'skipped' ? (note ? `skipped: ${note}` : 'skipped') : first ? `failed: ${first}` : 'failed';
    const data = { kind: 'test', titlePath: shown, location, durationMs: Math.round(durationMs ?? 0), retry: retry ?? 0 };
    if (project !== undefined && project !== null) data.project = project;
    emit(this.dir, 'step', name, status, message, data, id);
    if (final) {
      this.counts.total += 1;
      this.counts[{ ok: 'passed', failed: 'failed', skipped: 'skipped' }[status] ?? 'passed'] += 1;
    }
    let k = 0;
    for (const s of steps ?? []) {
      k += 1;
      const m = /^(s\d+)\s+(.*)$/s.exec(s.title);
      const sid = m ? m[1] : `${id}.${k}`;
      emit(
        this.dir,
        'step',
        `${name} › ${m ? m[2] : s.title}`,
        s.status,
        s.status === 'ok' ? 'passed' : s.status === 'skipped' ? 'skipped' : 'failed',
        { kind: 'test.step', test: id, location: s.location, durationMs: Math.round(s.durationMs ?? 0) },
        sid,
      );
    }
    const ids = [];
    errs.forEach((e, i) => {
      const eid = `${id}.e${i + 1}`;
      ids.push(eid);
      const error = { message: e.message ?? '' };
      for (const key of ['expected', 'actual', 'diff']) {
        if (e[key] !== undefined && e[key] !== null) error[key] = e[key];
      }
      const type = e.assertion || 'expected' in error || 'actual' in error ? 'assertion' : 'error';
      const ev = { kind: 'test-error', test: id, error, location: e.location ?? null, stack: e.stack ?? null };
      emit(this.dir, type, name, 'failed', firstLine(e.message) || 'failed', ev, eid);
    });
    return { id, name, location, errorIds: ids };
  }
}

/** The first non-blank line of a message, its terminal colours taken out. */
export function firstLine(message) {
  const text = plain(message);
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

/** A text without its SGR colour sequences. */
export function plain(text) {
  // eslint-disable-next-line no-control-regex
  return String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '');
}

/** The first frame of `stack` in a workspace file (not under node_modules),
 * preferring `prefer` (the test's own file): `{file, line, column}` absolute. */
export function frameIn(root, stack, prefer) {
  const frames = [];
  for (const l of plain(stack).split('\n')) {
    const m = /(?:\(|\s|^)((?:file:\/\/)?\/[^():\s]+):(\d+):(\d+)\)?\s*$/.exec(l.trim());
    if (!m) continue;
    const file = m[1].replace(/^file:\/\//, '');
    if (!file.startsWith(root + path.sep) || file.includes(`${path.sep}node_modules${path.sep}`)) continue;
    frames.push({ file, line: Number(m[2]), column: Number(m[3]) });
  }
  return frames.find((f) => prefer && f.file === prefer) ?? frames[0] ?? null;
}

/** Where the test's counts and a reporter's notes pass to the runner: the
 * run's work folder (outside the run folder and the person's tree). */
export function writeNote(name, value) {
  const work = process.env.TESTDECK_WORK;
  if (work) fs.writeFileSync(path.join(work, name), JSON.stringify(value));
}

/** A note a reporter left (`null` when none). */
export function readNote(work, name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(work, name), 'utf8'));
  } catch {
    return null;
  }
}

/** A Playwright project left out because its browser is not installed. */
export function skipSignal(dir, d) {
  const project = d.name || 'default';
  emit(dir, 'signal', 'runner/project-skipped', 'skipped', `project ${project} skipped: ${d.reason}`, {
    project,
    browser: d.browser,
    reason: d.reason,
  });
}

/** A case's run begins: its folder, the `run/start` event (`info`: the
 * runner, file, tool, code and env names), the runner's line. */
export function startRun(root, c, info) {
  const { dir, runId, started } = createRun(root, c.scope, c.caseId);
  console.log(`[workflow] ${c.scope}/${c.caseId} run ${runId} started`);
  emit(dir, 'run', 'run/start', 'info', `case ${c.caseId} started`, { runner: 'scripts/test-workflow.mjs', file: c.file, ...info });
  return { dir, runId, started, c, tool: info.tool };
}

/** A case's run ends: an error when the tool ended badly without a failed
 * event, `run/finish` with the file's test counts, runtime-events.jsonl,
 * artifacts.json (the run's `artifact` events whose file exists, and
 * `extra`), then meta.json last. Returns whether it passed. */
export function finishRun(root, run, { ok, tests, environment = null, exit, extra = [] }) {
  const { dir, runId, started, c, tool } = run;
  const counts = { total: tests?.total ?? 0, passed: tests?.passed ?? 0, failed: tests?.failed ?? 0, skipped: tests?.skipped ?? 0 };
  const passed = ok && environment === null;
  const events = readTimeline(dir);
  if (!passed && !environment && !events.some((e) => e.status === 'failed')) {
    // the tool ended badly without saying why in a test: say that it did
    emit(dir, 'error', 'runner/tool-exit', 'failed', tests?.noTests ?? `${tool} exited with status ${exit.code ?? exit.signal}`, {
      exitCode: exit.code,
      signal: exit.signal,
      error: exit.error ?? null,
    });
  }
  const finishedAt = new Date();
  const durationMs = finishedAt - started;
  const finish = { durationMs, tests: counts };
  if (counts.total === 0) finish.noTests = tests?.noTests ?? environment ?? `${tool} ran no test`;
  if (environment) finish.environment = environment;
  emit(dir, 'run', 'run/finish', passed ? 'ok' : 'failed', `case ${c.caseId} ${passed ? 'passed' : 'failed'}`, finish);

  const all = readTimeline(dir);
  const count = (t) => all.filter((e) => e.type === t).length;
  const items = all
    .filter((e) => e.type === 'artifact' && e.data?.path && fs.existsSync(path.join(dir, e.data.path)))
    .map((e) => ({ id: e.id, kind: e.data.kind, path: e.data.path, refs: e.data.refs ?? {} }))
    .concat(extra);
  // the tool's process (one for every vitest case of the invocation) and the runner's
  const runner = Number(process.env.TESTDECK_RUNNER_PID ?? process.pid);
  const runtime = [
    { type: 'runner.child.started', tool, pid: exit.pid, runner, file: c.file, at: started.toISOString() },
    exit.running
      ? { type: 'runner.file.ended', tool, pid: exit.pid, file: c.file, at: finishedAt.toISOString() }
      : { type: 'runner.child.exited', tool, exitCode: exit.code, signal: exit.signal, at: finishedAt.toISOString() },
  ];
  fs.writeFileSync(path.join(dir, 'runtime-events.jsonl'), runtime.map((e) => `${JSON.stringify(e)}\n`).join(''));
  writeAtomic(path.join(dir, 'artifacts.json'), `${JSON.stringify({ schemaVersion: 4, items }, null, 2)}\n`);
  const art = path.join(dir, 'artifacts');
  if (fs.existsSync(art) && !fs.readdirSync(art).length) fs.rmSync(art, { recursive: true, force: true });
  const meta = {
    schemaVersion: 4,
    runId,
    caseId: c.caseId,
    scope: c.scope,
    status: passed ? 'passed' : 'failed',
    startedAt: started.toISOString(),
    finishedAt: finishedAt.toISOString(),
    stats: { durationMs, steps: count('step'), assertions: count('assertion'), errors: count('error'), artifacts: items.length },
    runtime: { driver: tool, target: tool === 'playwright' ? 'chromium' : 'node', modelName: null },
  };
  // meta.json last, through a temp file: its arrival means the run is over
  writeAtomic(path.join(dir, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  const said = `${counts.total} test${counts.total === 1 ? '' : 's'}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
  console.log(`[workflow] ${path.relative(root, dir)} ${meta.status} (${durationMs} ms; ${said})`);
  return passed;
}
