#!/usr/bin/env node
// The project's test runner (seed 000 §4): finds the selected case files, runs
// each one (backend and temp cases with vitest, e2e specs with Playwright on the
// system Chromium) and writes its raw logs (seed 000 §5) under tests/logs/:
// timeline.jsonl grows while the case runs (the reporters append to it),
// runtime-events.jsonl and artifacts.json follow, meta.json comes last.
//
// Filters: --domain D --layer L --suite S --group G (repeatable: a path below
// the suite; a case matches when its groups hold every one) --case C
// (repeatable: alternatives) --runs N. Live cases run only with --group live
// or a --case naming them; temp cases only with --domain temp or --case. An
// e2e request (without --case) first runs the same domain's backend.
//
// Written by `testdeck init`. The reporters are given on the command line, so
// the project's vitest and Playwright configs stay as they are; an e2e run gets
// a free port in TEST_PORT for a config's webServer to use.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRun, emit, readTimeline, writeAtomic } from './lib/raw-log.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NOT_CASES = new Set(['harness', 'fixtures', 'logs', 'report']);
const CASE_FILE = /^(.+)\.(test|spec)\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$/;

function usage(message) {
  process.stderr.write(`test-workflow: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  // files: `--case` values holding a `/` (a test file relative to the root)
  const f = { domain: null, layer: null, suite: null, groups: [], cases: [], files: [], runs: 1 };
  for (let i = 0; i < argv.length; i += 1) {
    let [flag, value] = argv[i].split(/=(.*)/s, 2);
    if (value === undefined && flag !== '-h' && flag !== '--help') {
      value = argv[i + 1];
      i += 1;
    }
    if (flag === '-h' || flag === '--help') {
      process.stdout.write(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 13).join('\n') + '\n');
      process.exit(0);
    }
    if (value === undefined) usage(`${flag} needs a value`);
    switch (flag) {
      case '--domain': f.domain = value; break;
      case '--layer': f.layer = value; break;
      case '--suite': f.suite = value; break;
      case '--group': f.groups.push(value); break;
      case '--case':
        if (value.includes('/') || CASE_FILE.test(value)) f.files.push(value.replace(/^\.\//, ''));
        else f.cases.push(value);
        break;
      case '--runs':
        if (!/^[1-9][0-9]*$/.test(value)) usage('--runs needs a number of at least 1');
        f.runs = Number(value);
        break;
      default: usage(`unknown argument: ${flag}`);
    }
  }
  return f;
}

/** Every case file under tests/, in a stable order, and each file `--case`
 * names that is no case of the tree (a test outside it, SPEC §1.1a). */
function listCases(f = filters) {
  const out = [];
  const walk = (dir, rel) => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel ? `${rel}/${ent.name}` : ent.name;
      if (ent.isDirectory()) {
        if (!(rel === '' && NOT_CASES.has(ent.name))) walk(path.join(dir, ent.name), r);
      } else if (ent.isFile()) {
        const m = CASE_FILE.exec(ent.name);
        if (m) out.push(caseOf(r, m[1]));
      }
    }
  };
  if (fs.existsSync(path.join(root, 'tests'))) walk(path.join(root, 'tests'), '');
  for (const file of f.files) {
    const inTree = out.find((c) => c.file === file);
    // a tree case (tests/<domain>/<layer>/…, tests/temp/…) by its file
    if (inTree && (inTree.temp || inTree.layer !== null)) continue;
    const c = outsideCase(file);
    if (!c) usage(`--case ${file}: no test file there (a path relative to the workspace root)`);
    if (inTree) out.splice(out.indexOf(inTree), 1);
    out.push(c);
  }
  return out;
}

/** A test file outside tests/<domain>/<layer>/ (SPEC §1.1a): its runs go under
 * the scope temp/outside/<its folder>, its caseId is its name without the test
 * ending. Playwright runs it when it imports @playwright/test, vitest else. */
function outsideCase(file) {
  const parts = file.split('/');
  if (path.isAbsolute(file) || parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  const abs = path.join(root, file);
  let text;
  try {
    if (!fs.lstatSync(abs).isFile()) return null;
    text = fs.readFileSync(abs, 'utf8');
  } catch {
    return null;
  }
  const name = parts[parts.length - 1];
  const m = CASE_FILE.exec(name);
  const caseId = m ? m[1] : name.split('.')[0];
  const folders = ['temp', 'outside', ...parts.slice(0, -1)];
  const tool = /['"]@playwright\/test['"]/.test(text) ? 'playwright' : 'vitest';
  return {
    file,
    caseId,
    scope: folders.join('/'),
    domain: 'temp',
    // runCase takes `tool`; `layer: 'e2e'` says the same to a runCase that looks at the layer
    layer: tool === 'playwright' ? 'e2e' : null,
    suite: null,
    groups: folders.slice(1),
    temp: true,
    outside: true,
    tool,
  };
}

function caseOf(rel, caseId) {
  const folders = rel.split('/').slice(0, -1);
  const temp = folders[0] === 'temp';
  const [domain = '', layer = null, suite = null] = temp ? [folders[0]] : folders;
  const groups = temp ? folders.slice(1) : folders.slice(3);
  const tool = layer === 'e2e' ? 'playwright' : 'vitest';
  return { file: `tests/${rel}`, caseId, scope: folders.join('/'), domain, layer, suite, groups, temp, outside: false, tool };
}

function selected(c, f) {
  // a file named by --case is chosen whatever else is asked; an outside case only so
  if (f.files.includes(c.file)) return true;
  if (c.outside) return false;
  const byTree = f.domain || f.layer || f.suite || f.groups.length || f.cases.length;
  if (f.files.length && !byTree) return false;
  if (f.cases.length && !f.cases.includes(c.caseId)) return false;
  if (f.domain && c.domain !== f.domain) return false;
  if (f.layer && c.layer !== f.layer) return false;
  if (f.suite && c.suite !== f.suite) return false;
  if (!f.groups.every((g) => c.groups.includes(g))) return false;
  if (!f.cases.length) {
    // live cases spend real model calls: only when --group live asks for them
    if (c.groups.includes('live') && !f.groups.includes('live')) return false;
    if (c.temp && f.domain !== 'temp') return false;
  }
  return true;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

let child = null;
// testdeck (or a person) cancels with SIGTERM: stop the tool, leave the run
// without meta.json (it did not end), exit
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    if (child) child.kill(sig);
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

function runTool(argv, env) {
  return new Promise((resolve) => {
    child = spawn(process.execPath, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    const pid = child.pid;
    child.on('error', (e) => resolve({ pid, code: null, signal: null, error: e.message }));
    child.on('exit', (code, signal) => {
      child = null;
      resolve({ pid, code, signal, error: null });
    });
  });
}

function copyInto(dir, from, name) {
  fs.mkdirSync(path.join(dir, 'artifacts', path.dirname(name)), { recursive: true });
  fs.copyFileSync(from, path.join(dir, 'artifacts', name));
  return `artifacts/${name}`;
}

async function runCase(c) {
  const e2e = c.layer === 'e2e';
  const { dir, runId, started } = createRun(root, c.scope, c.caseId);
  const rel = path.relative(root, dir);
  console.log(`[workflow] ${c.scope}/${c.caseId} run ${runId} started`);
  const tool = e2e ? 'playwright' : 'vitest';
  emit(dir, 'run', 'run/start', 'info', `case ${c.caseId} started`, { runner: 'scripts/test-workflow.mjs', file: c.file, tool });

  const items = [];
  let exit;
  if (e2e) {
    const port = await freePort();
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'testdeck-pw-'));
    const report = path.join(dir, 'artifacts', 'playwright', 'report');
    exit = await runTool(
      [
        'node_modules/@playwright/test/cli.js',
        'test',
        '--reporter=./scripts/playwright-reporter.mjs,html',
        '--trace=on',
        `--output=${work}`,
        c.file,
      ],
      {
        RAW_LOG_DIR: dir,
        TEST_PORT: String(port),
        PW_OUTPUT_DIR: work,
        PW_HTML_DIR: report,
        PLAYWRIGHT_HTML_OUTPUT_DIR: report,
        PLAYWRIGHT_HTML_REPORT: report,
        PLAYWRIGHT_HTML_OPEN: 'never',
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
      },
    );
    const resultFile = path.join(dir, '.playwright-result.json');
    const result = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : null;
    fs.rmSync(resultFile, { force: true });
    const failed = exit.code !== 0;
    for (const a of result?.attachments ?? []) {
      if (a.name === 'trace') {
        items.push({ id: 'trace', kind: 'trace', path: copyInto(dir, a.path, 'trace.zip'), refs: {} });
      } else if (a.name === 'screenshot' && failed) {
        const refs = {};
        if (result.failed?.stepId ?? result.lastStep) refs.stepId = result.failed?.stepId ?? result.lastStep;
        if (result.failed?.assertionId) refs.assertionId = result.failed.assertionId;
        items.push({ id: 'failure-screenshot', kind: 'screenshot', path: copyInto(dir, a.path, 'failure.png'), refs });
      }
    }
    // seed 000 §6: the HTML diagnostics page only for a failed run
    if (failed && fs.existsSync(path.join(report, 'index.html'))) {
      items.push({ id: 'playwright-report', kind: 'playwright-report', path: 'artifacts/playwright/report/index.html', refs: {} });
    } else {
      fs.rmSync(path.join(dir, 'artifacts', 'playwright'), { recursive: true, force: true });
    }
    fs.rmSync(work, { recursive: true, force: true });
  } else {
    exit = await runTool(
      ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=./scripts/vitest-reporter.mjs', c.file],
      { RAW_LOG_DIR: dir },
    );
  }
  for (const it of items) {
    emit(dir, 'artifact', `artifact/${it.kind}`, 'info', `${it.kind} written`, { path: it.path }, it.id);
  }
  const events = readTimeline(dir);
  const passed = exit.code === 0;
  if (!passed && !events.some((e) => e.status === 'failed')) {
    // the tool ended badly without saying why in a step: say that it did
    emit(dir, 'error', 'runner/tool-exit', 'failed', `${tool} exited without a passing result`, {
      exitCode: exit.code,
      signal: exit.signal,
      error: exit.error,
    });
  }
  const finishedAt = new Date();
  const durationMs = finishedAt - started;
  emit(dir, 'run', 'run/finish', passed ? 'ok' : 'failed', `case ${c.caseId} ${passed ? 'passed' : 'failed'}`, { durationMs });

  const all = readTimeline(dir);
  const count = (t) => all.filter((e) => e.type === t).length;
  const runtime = [
    { type: 'runner.child.started', tool, pid: exit.pid, file: c.file, at: started.toISOString() },
    { type: 'runner.child.exited', tool, exitCode: exit.code, signal: exit.signal, at: finishedAt.toISOString() },
  ];
  fs.writeFileSync(path.join(dir, 'runtime-events.jsonl'), runtime.map((e) => `${JSON.stringify(e)}\n`).join(''));
  writeAtomic(path.join(dir, 'artifacts.json'), `${JSON.stringify({ schemaVersion: 4, items }, null, 2)}\n`);
  const meta = {
    schemaVersion: 4,
    runId,
    caseId: c.caseId,
    scope: c.scope,
    status: passed ? 'passed' : 'failed',
    startedAt: started.toISOString(),
    finishedAt: finishedAt.toISOString(),
    stats: { durationMs, steps: count('step'), assertions: count('assertion'), errors: count('error'), artifacts: items.length },
    runtime: { driver: tool, target: e2e ? 'chromium' : 'node', modelName: null },
  };
  // meta.json last, through a temp file: its arrival means the run is over
  writeAtomic(path.join(dir, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  console.log(`[workflow] ${rel} ${meta.status} (${durationMs} ms)`);
  return passed;
}

const filters = parseArgs(process.argv.slice(2));
const all = listCases();
let chosen = all.filter((c) => selected(c, filters));
if (!chosen.length) {
  process.stderr.write('test-workflow: no case matches the filters\n');
  process.exit(1);
}
// seed 000 §4: an e2e request first runs the same domain's backend
if (filters.layer === 'e2e' && !filters.cases.length) {
  const pre = all.filter((c) => selected(c, { ...filters, layer: 'backend', suite: null, groups: [] }));
  chosen = [...pre, ...chosen];
}
let total = 0;
let failed = 0;
for (let i = 0; i < filters.runs; i += 1) {
  for (const c of chosen) {
    total += 1;
    if (!(await runCase(c))) failed += 1;
  }
}
console.log(`[workflow] ${total} run(s), ${failed} failed`);
process.exit(failed ? 1 : 0);
