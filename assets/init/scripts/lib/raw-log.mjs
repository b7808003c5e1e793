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
