// Plan: doc/test-plan/ai.md — terminal-build-and-test
// Oracle: 三条命令 exitCode 均为 0，顺序与计划一致
import { defineCase } from "../../../../../harness/case";
import { fixture } from "../../../../../harness/fixtures";

export default defineCase({
  caseId: "terminal-build-and-test",
  scope: "ai/backend/tools/terminal/scenario",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("workspace-node");
    // terminal session opened in workspace-node
    await step("s1", "terminal/open-session", () => ctx.tools.terminal.open(ws));
    // command `npm ci` executed
    await step("s2", "terminal/run-install", () => session.exec("npm ci"));
    // command `npm run build` executed
    await step("s3", "terminal/run-build", () => session.exec("npm run build"));
    // command `npm test` executed
    await step("s4", "terminal/run-test", () => session.exec("npm test"));
    assert("a1", "oracle/all-exit-zero", codes, [0, 0, 0]);
    assert("a2", "oracle/order", order, ["install", "build", "test"]);
  },
});
