// Plan: doc/test-plan/ai.md — director-plan-approval-denied
// Oracle: plan 状态为 stopped，tool 调用数为 0
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "director-plan-approval-denied",
  scope: "ai/backend/director-plan/boundary",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("intent-weekly-report");
    // plan built from intent
    await step("s1", "director/build-plan", () => ctx.director.plan(intent));
    // approval denied for step 1
    await step("s2", "director/deny-approval", () => plan.respond(1, "deny"));
    assert("a1", "oracle/plan-stopped", plan.state, "stopped");
    assert("a2", "oracle/no-tool-call", toolCalls.length, 0);
  },
});
