// Plan: doc/test-plan/ai.md — terminal-workspace-boundary-rejected
// Oracle: runtime 发出 guard.rejected 事件，命令未执行
import { defineCase } from "../../../../../harness/case";
import { fixture } from "../../../../../harness/fixtures";

export default defineCase({
  caseId: "terminal-workspace-boundary-rejected",
  scope: "ai/backend/tools/terminal/boundary",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("workspace-basic");
    // terminal session opened in workspace-basic
    await step("s1", "terminal/open-session", () => ctx.tools.terminal.open(ws));
    // command `cat ../../etc/hostname` requested
    await step("s2", "terminal/run-command", () => session.exec("cat ../../etc/hostname"));
    assert("a1", "oracle/guard-rejected", guard.decision, "rejected");
    assert("a2", "oracle/command-not-run", result.executed, false);
  },
});
