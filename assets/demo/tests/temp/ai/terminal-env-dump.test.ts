// Temporary probe: prints the terminal tool's environment once while chasing a PATH issue.
import { defineCase } from "../../harness/case";

export default defineCase({
  caseId: "terminal-env-dump",
  scope: "temp/ai",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    await step("s1", "terminal/open-session", () => ctx.tools.terminal.open());
    assert("a1", "oracle/path-set", Boolean(process.env.PATH), true);
  },
});
