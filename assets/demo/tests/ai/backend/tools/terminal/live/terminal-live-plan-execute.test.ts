// Plan: doc/test-plan/ai.md — terminal-live-plan-execute
// Oracle: 模型调用 terminal.exec 至少一次，最终回答中的数字等于 fixture 中的 7
// live: calls the real model (gpt-4.1-mini); run with --group live or --case terminal-live-plan-execute.
import { defineCase } from "../../../../../harness/case";
import { fixture } from "../../../../../harness/fixtures";

export default defineCase({
  caseId: "terminal-live-plan-execute",
  scope: "ai/backend/tools/terminal/live",
  driver: "node-harness",
  model: "gpt-4.1-mini",
  async run({ step, assert, ctx }) {
    const ws = await fixture("workspace-node");
    // prompt sent to the model
    await step("s1", "ai/send-prompt", () => ctx.ai.send(prompt));
    // model run completed
    await step("s2", "ai/await-completion", () => run.completion());
    assert("a1", "oracle/tool-called", toolCalls.length >= 1, true);
    assert("a2", "oracle/answer-count", answer.count, 7);
  },
});
