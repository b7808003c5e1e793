// Writes one run folder of the raw log contract (seed 000 §5).
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type TimelineType = "run" | "step" | "assertion" | "artifact" | "signal" | "error";
export type TimelineStatus = "info" | "ok" | "failed" | "skipped";

export interface TimelineEvent {
  type: TimelineType;
  name: string;
  status: TimelineStatus;
  id?: string;
  message: string;
  data?: unknown;
}

export class LogWriter {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "timeline.jsonl"), "");
  }

  event(e: TimelineEvent) {
    appendFileSync(join(this.dir, "timeline.jsonl"), JSON.stringify({ ts: new Date().toISOString(), ...e }) + "\n");
  }

  finish(meta: object) {
    // meta.json last, through a temp file: its presence means the run is over
    const tmp = join(this.dir, ".meta.json.tmp");
    writeFileSync(tmp, JSON.stringify(meta, null, 2));
    renameSync(tmp, join(this.dir, "meta.json"));
  }
}
