// The harness of the backend cases: an assertion of the case's Oracle is
// reported (through vitest's annotations) as it is checked, then enforced.
import { expect } from 'vitest';

type Annotate = (message: string, type?: string) => Promise<unknown>;

/** Check `actual` against `expected` as the Oracle assertion `id`. */
export async function oracle(
  annotate: Annotate,
  id: string,
  name: string,
  actual: unknown,
  expected: unknown,
): Promise<void> {
  const ok = JSON.stringify(actual) === JSON.stringify(expected);
  const message = ok ? `${name} held` : `${name} did not hold`;
  await annotate(JSON.stringify({ id, name, ok, expected, actual, message }), 'assertion');
  expect(actual).toEqual(expected);
}

/** An externally observable signal (a console line, an event of the code under test). */
export async function signal(annotate: Annotate, name: string, message: string, data: unknown = null): Promise<void> {
  await annotate(JSON.stringify({ name, message, data }), 'signal');
}
