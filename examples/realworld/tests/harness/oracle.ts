// The harness of the backend cases: an assertion of the case's Oracle is
// reported (through vitest's annotations) as it is checked, then enforced.
import { expect } from 'vitest';

type Annotate = (message: string, type?: string) => Promise<unknown>;

/** Check `actual` against `expected` as the Oracle assertion `id`. A failed
 * check carries vitest's own error (message, stack, expected, actual) and the
 * test's line, as a runner that reports failures writes them. */
export async function oracle(
  annotate: Annotate,
  id: string,
  name: string,
  actual: unknown,
  expected: unknown,
): Promise<void> {
  let failure: unknown = null;
  try {
    expect(actual).toEqual(expected);
  } catch (e) {
    failure = e;
  }
  const ok = failure === null;
  const message = ok ? `${name} held` : `${name} did not hold`;
  const body: Record<string, unknown> = { id, name, ok, expected, actual, message };
  if (!ok) {
    const err = failure as Error;
    body.error = {
      message: err.message,
      stack: err.stack ?? null,
      expected: JSON.stringify(expected, null, 2),
      actual: JSON.stringify(actual, null, 2),
    };
    body.location = caller(err.stack ?? '');
  }
  await annotate(JSON.stringify(body), 'assertion');
  if (failure !== null) throw failure;
}

/** The case file's own frame of a stack (`file`, `line`), past the harness. */
function caller(stack: string): { file: string; line: number } | null {
  for (const l of stack.split('\n')) {
    const m = /\(?((?:file:\/\/)?[^()\s]+\.(?:test|spec)\.[cm]?[jt]sx?):(\d+):\d+\)?\s*$/.exec(l);
    if (m) return { file: m[1], line: Number(m[2]) };
  }
  return null;
}

/** An externally observable signal (a console line, an event of the code under test). */
export async function signal(annotate: Annotate, name: string, message: string, data: unknown = null): Promise<void> {
  await annotate(JSON.stringify({ name, message, data }), 'signal');
}
