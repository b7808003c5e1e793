// The case helper every test file uses: records steps and assertions as timeline events.
import { LogWriter } from "./log-writer";

export type StepFn<T> = () => Promise<T> | T;

export interface CaseContext {
  step<T>(id: string, name: string, fn: StepFn<T>): Promise<T>;
  assert(id: string, name: string, actual: unknown, expected: unknown): void;
  ctx: any;
  page: any;
}

export interface CaseDefinition {
  caseId: string;
  scope: string;
  driver: "node-harness" | "playwright";
  model?: string;
  run(c: CaseContext): Promise<void>;
}

export function defineCase(def: CaseDefinition): CaseDefinition {
  return def;
}

export async function runCase(def: CaseDefinition, log: LogWriter, c: Omit<CaseContext, "step" | "assert">) {
  const step = async <T>(id: string, name: string, fn: StepFn<T>) => {
    const t0 = Date.now();
    const value = await fn();
    log.event({ type: "step", name, status: "ok", id, message: name, data: { durationMs: Date.now() - t0 } });
    return value;
  };
  const assert = (id: string, name: string, actual: unknown, expected: unknown) => {
    const ok = JSON.stringify(actual) === JSON.stringify(expected);
    log.event({ type: "assertion", name, status: ok ? "ok" : "failed", id, message: name, data: { expected, actual } });
    if (!ok) throw new Error(`assertion ${id} failed`);
  };
  await def.run({ ...c, step, assert });
}
