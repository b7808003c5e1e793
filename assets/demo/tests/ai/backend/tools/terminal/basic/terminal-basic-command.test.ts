// Plan: doc/test-plan/ai.md — terminal-basic-command
// Oracle: exitCode 为 0 且 stdout 含 `hello`
import { defineCase } from "../../../../../harness/case";
import { fixture } from "../../../../../harness/fixtures";

export default defineCase({
  caseId: "terminal-basic-command",
  scope: "ai/backend/tools/terminal/basic",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("workspace-basic");
    // terminal session opened in workspace-basic
    await step("s1", "terminal/open-session", () => ctx.tools.terminal.open(ws));
    // command `echo hello` executed
    await step("s2", "terminal/run-command", () => session.exec("echo hello"));
    assert("a1", "oracle/exit-code", result.exitCode, 0);
    assert("a2", "oracle/stdout-contains", result.stdout.includes("hello"), true);
  },
});
