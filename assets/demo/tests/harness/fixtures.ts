// Loads a named fixture from tests/fixtures/.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export async function fixture(name: string) {
  const dir = join(__dirname, "..", "fixtures", name);
  return { name, dir, read: (file: string) => readFileSync(join(dir, file), "utf8") };
}
