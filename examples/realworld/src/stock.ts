// Stock reservations against a warehouse that answers after a random delay: two
// reservations race, and the slower answer sometimes wins (a real flake).
export async function reserveBoth(sku: string, timeoutMs: number): Promise<string[]> {
  const answer = (who: string) =>
    new Promise<string>((resolve) => setTimeout(() => resolve(who), Math.random() * 2 * timeoutMs));
  const order: string[] = [];
  await Promise.all(['first', 'second'].map(async (who) => order.push(await answer(`${sku}:${who}`))));
  return order;
}

/** A checkout that waits on the payment provider (slow on purpose). */
export async function pay(cents: number, waitMs: number): Promise<{ paid: number }> {
  await new Promise((r) => setTimeout(r, waitMs));
  return { paid: cents };
}
