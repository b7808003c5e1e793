#!/usr/bin/env node
// The project's test runner (seed 000 §4): finds the selected case files, runs
// them (backend and temp cases in one vitest process, e2e specs in one
// Playwright process on the system Chromium) and writes each case's raw logs
// (seed 000 §5) under tests/logs/: timeline.jsonl grows while the case runs,
// runtime-events.jsonl and artifacts.json follow, meta.json comes last.
//
// Filters: --domain D --layer L --suite S --group G (repeatable: a path below
// the suite; a case matches when its groups hold every one) --case C
// (repeatable: alternatives; a caseId, or a case file relative to the root)
// --runs N. Live cases run only with --group live or a --case naming them;
// temp only with --domain temp or --case. An e2e request (no --case) first
// runs the same domain's backend.
//
// Written by `testdeck init`. vitest gets the reporters on its command line;
// Playwright gets a config of the runner's own (in a temp folder) that imports
// the project's and overrides only the reporters, the files, the trace and
// failure screenshot, and the projects whose browser is missing (skipped, or
// the system Chromium) — the project's configs stay as they are. An e2e run
// gets a free port in TEST_PORT for a config's webServer to use.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit, finishRun, plain, readNote, skipSignal, startRun } from './lib/raw-log.mjs';

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
      process.stdout.write(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 14).join('\n') + '\n');
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

/** A test tool as a child of the runner. `drop`, when given, is told each
 * line the tool prints on stdout and answers whether to leave it out. */
function runTool(argv, env, drop = null) {
  return new Promise((resolve) => {
    child = spawn(process.execPath, argv, {
      cwd: root,
      env: { ...process.env, TESTDECK_RUNNER_PID: String(process.pid), ...env },
      stdio: ['ignore', drop ? 'pipe' : 'inherit', 'inherit'],
    });
    if (drop) {
      let rest = '';
      child.stdout.on('data', (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop();
        const kept = lines.filter((l) => !drop(l));
        if (kept.length) process.stdout.write(`${kept.join('\n')}\n`);
      });
      child.stdout.on('end', () => {
        if (rest && !drop(rest)) process.stdout.write(`${rest}\n`);
      });
    }
    const pid = child.pid;
    child.on('error', (e) => resolve({ pid, code: null, signal: null, error: e.message }));
    child.on('exit', (code, signal) => {
      child = null;
      resolve({ pid, code, signal, error: null });
    });
  });
}

/** git, with no program the repository configures (hooks, fsmonitor, pager,
 * external diff, text conversion) and no system config; `null` on failure. */
function git(args) {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_PAGER: 'cat', PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
  delete env.GIT_EXTERNAL_DIFF;
  const r = spawnSync(
    'git',
    ['--no-pager', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.pager=cat', ...args],
    { cwd: root, env, maxBuffer: 64 << 20, timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return r.status === 0 ? r.stdout : null;
}

/** The id git gives a file's bytes (as they are: no filter runs). */
function blobId(bytes, long) {
  const h = crypto.createHash(long ? 'sha256' : 'sha1');
  h.update(`blob ${bytes.length}\0`);
  h.update(bytes);
  return h.digest('hex');
}

/** `run/start`'s `data.code`: the commit the work tree stands on and a hash of
 * the uncommitted changes to tracked files and test files (`null` when none);
 * `null` outside git. Blob ids are compared, so no clean filter runs. */
function codeOf() {
  const head = git(['rev-parse', '--verify', '-q', 'HEAD']);
  if (head === null) return null;
  const commit = head.toString().trim();
  const changes = [];
  const diff = git(['diff-index', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', 'HEAD', '--']);
  if (diff === null) return { commit, dirty: null };
  const parts = diff.toString('utf8').split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [, , from, to, kind] = parts[i].replace(/^:/, '').split(' ');
    const file = parts[i + 1];
    let now = to;
    if (/^0+$/.test(to) && kind !== 'D') {
      try {
        now = blobId(fs.readFileSync(path.join(root, file)), from.length === 64);
      } catch {
        now = 'gone';
      }
    }
    if (now !== from) changes.push(`${file}\0${from}\0${kind === 'D' ? 'deleted' : now}`);
  }
  const untracked = git([
    'ls-files', '-z', '--others', '--exclude-standard', '--',
    'tests/', ':(glob)**/*.test.*', ':(glob)**/*.spec.*', ':(exclude)tests/logs',
  ]);
  for (const file of (untracked?.toString('utf8') ?? '').split('\0').filter(Boolean)) {
    try {
      changes.push(`${file}\0new\0${blobId(fs.readFileSync(path.join(root, file)), false)}`);
    } catch {
      // gone since it was listed
    }
  }
  if (!changes.length) return { commit, dirty: null };
  const h = crypto.createHash('sha256');
  for (const c of changes.sort()) h.update(`${c}\n`);
  return { commit, dirty: h.digest('hex').slice(0, 16) };
}

/** The variables testdeck gave from `testdeck.toml`'s `[runner] env`: their
 * names only (never the values). */
function envNames() {
  return (process.env.TESTDECK_RUNNER_ENV ?? '').split(',').filter(Boolean).sort();
}

const CONFIG_EXTS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'];

/** The project's own Playwright config (absolute), if it has one at the root. */
function playwrightConfig() {
  for (const ext of CONFIG_EXTS) {
    const f = path.join(root, `playwright.config.${ext}`);
    if (fs.existsSync(f)) return f;
  }
  return null;
}

/** A Playwright config of testdeck's own, in the run's work folder: it imports
 * the project's (left as it is) and overrides only the reporters, the files to
 * run, where output goes, the trace and failure screenshot seed 000 §6 keeps,
 * and the projects whose browser is not installed (skipped, said in
 * `projects.json`), with the system Chromium for a chromium project whose
 * bundled browser is missing. */
function generatedConfig(work, files, htmlDir) {
  const settings = {
    root,
    theirs: playwrightConfig(),
    files: files.map((f) => path.resolve(root, f)),
    reporter: path.join(root, 'scripts', 'playwright-reporter.mjs'),
    htmlDir,
    outputDir: path.join(work, 'output'),
    decisions: path.join(work, 'projects.json'),
    chromium: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  };
  const file = path.join(work, 'playwright.config.mjs');
  fs.writeFileSync(file, `${PW_CONFIG.replace('__SETTINGS__', () => JSON.stringify(settings))}\n`);
  return file;
}

const PW_CONFIG = `// Written by the testdeck runner for one Playwright process; the project's config is imported, not changed.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const S = __SETTINGS__;
const pw = createRequire(path.join(S.root, 'package.json'))('@playwright/test');
let theirs = S.theirs ? (await import(pathToFileURL(S.theirs).href)).default ?? {} : {};
if (theirs && typeof theirs.then === 'function') theirs = await theirs;
const dir = S.theirs ? path.dirname(S.theirs) : S.root;
const at = (p) => (typeof p === 'string' ? path.resolve(dir, p) : p);
const local = (p) => (typeof p === 'string' && p.startsWith('.') ? path.resolve(dir, p) : p);
const esc = (s) => s.replace(/[.*+?^\${}()|[\\]\\\\]/g, '\\\\$&');
const testDir = (() => {
  const dirs = S.files.map((f) => path.dirname(f));
  let common = dirs[0] ?? S.root;
  while (!dirs.every((d) => d === common || d.startsWith(common + path.sep))) common = path.dirname(common);
  return common;
})();
const testMatch = S.files.map((f) => new RegExp('^' + esc(f) + '$'));
const HOW = { chromium: 'npx playwright install chromium', firefox: 'npx playwright install firefox', webkit: 'npx playwright install webkit' };

function decide(name, use) {
  const browser = use.browserName ?? use.defaultBrowserType ?? 'chromium';
  const channel = use.channel;
  if (use.launchOptions?.executablePath || (channel && !String(channel).startsWith('chromium'))) return { name, browser, run: true, use };
  let bundled = null;
  try {
    bundled = pw[browser]?.executablePath() ?? null;
  } catch {
    bundled = null;
  }
  if (bundled && fs.existsSync(bundled)) return { name, browser, run: true, use };
  if (browser === 'chromium' && fs.existsSync(S.chromium)) {
    const launchOptions = { ...(use.launchOptions ?? {}), executablePath: S.chromium };
    return { name, browser, run: true, system: S.chromium, use: { ...use, launchOptions } };
  }
  const reason =
    'its browser ' + browser + ' is not installed (' + HOW[browser] + (browser === 'chromium' ? ', or set CHROMIUM_PATH to a Chromium' : '') + ')';
  return { name, browser, run: false, reason, use };
}

const mine = { trace: 'on', screenshot: 'only-on-failure' };
const top = { ...(theirs.use ?? {}), ...mine };
const given = Array.isArray(theirs.projects) && theirs.projects.length ? theirs.projects : null;
const needed = new Set((given ?? []).flatMap((p) => [...(p.dependencies ?? []), ...(p.teardown ? [p.teardown] : [])]));
const decisions = [];
let projects;
if (given) {
  projects = [];
  for (const p of given) {
    const d = decide(p.name ?? '', { ...top, ...(p.use ?? {}), ...mine });
    decisions.push({ name: d.name, browser: d.browser, run: d.run, reason: d.reason ?? null, system: d.system ?? null, setup: needed.has(p.name) });
    if (!d.run) continue;
    const q = { ...p, use: d.use, outputDir: S.outputDir };
    if (needed.has(p.name)) Object.assign(q, { testDir: at(p.testDir ?? theirs.testDir ?? '.') });
    else Object.assign(q, { testDir, testMatch, testIgnore: [] });
    projects.push(q);
  }
} else {
  const d = decide('', top);
  decisions.push({ name: '', browser: d.browser, run: d.run, reason: d.reason ?? null, system: d.system ?? null, setup: false });
  projects = d.run ? [{ name: '', use: d.use, testDir, testMatch, testIgnore: [], outputDir: S.outputDir }] : [];
}
fs.writeFileSync(S.decisions, JSON.stringify(decisions));
const runnable = decisions.some((d) => d.run && !d.setup);
if (!runnable) {
  // nothing can run here: a project that finds no file, so Playwright starts no browser
  projects = [{ name: 'no-browser', testDir: path.dirname(S.decisions), testMatch: /^$/, outputDir: S.outputDir }];
}
const webServer = theirs.webServer
  ? [].concat(theirs.webServer).map((w) => ({ ...w, cwd: at(w.cwd ?? '.') }))
  : undefined;

export default {
  ...theirs,
  use: top,
  testDir,
  testMatch,
  testIgnore: [],
  outputDir: S.outputDir,
  ...(theirs.globalSetup ? { globalSetup: [].concat(theirs.globalSetup).map(local) } : {}),
  ...(theirs.globalTeardown ? { globalTeardown: [].concat(theirs.globalTeardown).map(local) } : {}),
  ...(theirs.tsconfig ? { tsconfig: at(theirs.tsconfig) } : {}),
  ...(theirs.snapshotDir ? { snapshotDir: at(theirs.snapshotDir) } : {}),
  ...(webServer && runnable ? { webServer } : { webServer: undefined }),
  projects,
  // the HTML report first: it is written when testdeck's reporter ends the failed runs with it
  reporter: [['html', { open: 'never', outputFolder: S.htmlDir }], [S.reporter]],
};`;

/** The test tool of a case: the one its selection named, else Playwright for
 * an e2e case and vitest for the rest. */
function toolOf(c) {
  return c.tool ?? (c.layer === 'e2e' ? 'playwright' : 'vitest');
}

/** What every run of this invocation records of the code and the env. */
let runInfo = null;
function infoOf(tool) {
  runInfo ??= { code: codeOf(), env: envNames() };
  return { tool, ...runInfo };
}

/** The work folder of one tool's launch: what its reporter is given and
 * hands back (`cases.json`: the run's info, the cases with their absolute
 * files and what `more` adds; the runs it ended), outside the run folders and
 * the person's tree, removed when the tool ends. */
function workFolder(info, cases, more = () => ({})) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'testdeck-run-'));
  const abs = cases.map((c) => ({ ...c, abs: path.resolve(root, c.file) }));
  fs.writeFileSync(path.join(work, 'cases.json'), JSON.stringify({ info, ...more(work), cases: abs }));
  return work;
}

/** Every Playwright case of the selection in ONE Playwright process, on the
 * runner's config listing all their files: its reporter opens each case's run
 * folder as the file's first test begins and closes it (meta.json last) as
 * its last test ends; a file Playwright never started ends here, failed,
 * with what Playwright said (or, no project able to run here, as the
 * environment's failure). */
async function runPlaywright(cases) {
  const info = infoOf('playwright');
  const report = (work) => path.join(work, 'report');
  const work = workFolder(info, cases, (w) => ({ htmlDir: report(w) }));
  const htmlDir = report(work);
  const port = await freePort();
  const config = generatedConfig(work, cases.map((c) => c.file), htmlDir);
  const exit = await runTool(['node_modules/@playwright/test/cli.js', 'test', '-c', config], {
    TESTDECK_WORK: work,
    TESTDECK_ROOT: root,
    TEST_PORT: String(port),
    PLAYWRIGHT_HTML_OPEN: 'never',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  }, showReportHint());
  const decisions = readNote(work, 'projects.json') ?? [];
  let environment = null;
  if (decisions.length && !decisions.some((d) => d.run && !d.setup)) {
    environment = `no Playwright project can run here: ${decisions.map((d) => `${d.name || 'default'} (${d.reason})`).join('; ')}`;
  }
  // the project's webServer did not start (the reporter kept what it said)
  environment ??= readNote(work, 'environment.json');
  const ended = readNote(work, 'runs.json') ?? {};
  const said = readNote(work, 'no-tests.json');
  const out = [];
  for (const c of cases) {
    const done = ended[c.file];
    if (done) {
      out.push(done.passed);
      continue;
    }
    // Playwright never started this file: no project could run, it stopped
    // first, or its config leaves the file out
    const run = startRun(root, c, info);
    for (const d of decisions.filter((x) => !x.run)) skipSignal(run.dir, d);
    if (environment) emit(run.dir, 'error', 'runner/environment', 'failed', environment, { kind: 'environment', projects: decisions });
    const noTests = environment ?? said ?? (exit.code === 0 ? 'No tests found.' : `Playwright did not run ${c.file}`);
    out.push(finishRun(root, run, { ok: false, tests: { noTests }, environment, exit }));
  }
  fs.rmSync(work, { recursive: true, force: true });
  return out;
}

/** Playwright's HTML reporter ends with `To open last HTML report run:` and a
 * `show-report` command naming the work folder, deleted when Playwright
 * ends (a failed case keeps its copy in its run folder): those lines are
 * left out, and the blank lines around them. */
function showReportHint() {
  let inHint = false;
  return (line) => {
    const text = plain(line).trim();
    if (/^To open last HTML report run:/.test(text)) {
      inHint = true;
      return true;
    }
    if (!inHint) return false;
    if (/show-report/.test(text)) inHint = false;
    return true;
  };
}

/** Every vitest case of the selection in ONE vitest process: its reporter
 * opens each case's run folder as the file starts and closes it (meta.json
 * last) as the file ends; a file vitest never started ends here, failed,
 * with what vitest said. */
async function runVitest(cases) {
  const info = infoOf('vitest');
  const work = workFolder(info, cases);
  const exit = await runTool(
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--includeTaskLocation',
      '--reporter=default',
      '--reporter=./scripts/vitest-reporter.mjs',
      ...cases.map((c) => c.file),
    ],
    { TESTDECK_WORK: work, TESTDECK_ROOT: root },
  );
  const ended = readNote(work, 'runs.json') ?? {};
  const out = [];
  for (const c of cases) {
    const done = ended[c.file];
    if (done) {
      out.push(done.passed);
      continue;
    }
    // vitest did not run this file (it stopped, or its config leaves the file out)
    const run = startRun(root, c, info);
    const noTests = readNote(work, 'no-tests.json') ?? `vitest did not run ${c.file}`;
    out.push(finishRun(root, run, { ok: false, tests: { noTests }, exit }));
  }
  fs.rmSync(work, { recursive: true, force: true });
  return out;
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
// one vitest process for all the vitest cases (the backend an e2e request
// runs first among them), then one Playwright process for all the Playwright cases
const vitestCases = chosen.filter((c) => toolOf(c) !== 'playwright');
const pwCases = chosen.filter((c) => toolOf(c) === 'playwright');
for (let i = 0; i < filters.runs; i += 1) {
  const verdicts = vitestCases.length ? await runVitest(vitestCases) : [];
  if (pwCases.length) verdicts.push(...(await runPlaywright(pwCases)));
  total += verdicts.length;
  failed += verdicts.filter((v) => !v).length;
}
console.log(`[workflow] ${total} run(s), ${failed} failed`);
process.exit(failed ? 1 : 0);
