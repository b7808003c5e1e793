// The code under test: a tiny shop cart.
export interface Line {
  sku: string;
  priceCents: number;
  qty: number;
}

export function totalCents(lines: Line[]): number {
  return lines.reduce((sum, l) => sum + l.priceCents * l.qty, 0);
}

/** A percentage discount, rounded to the cent. */
export function discounted(cents: number, percent: number): number {
  if (percent < 0 || percent > 100) throw new RangeError(`discount ${percent}% is out of range`);
  return Math.round(cents * (1 - percent / 100));
}

/** Quantities below one are refused (the bug the failing case shows: they are not). */
export function addLine(lines: Line[], line: Line): Line[] {
  return [...lines, line];
}
