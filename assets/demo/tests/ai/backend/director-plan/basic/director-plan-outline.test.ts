// Plan: doc/test-plan/ai.md — director-plan-outline
// Oracle: 计划含 3 个步骤，每步有 title 与 tool
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "director-plan-outline",
  scope: "ai/backend/director-plan/basic",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("intent-weekly-report");
    // intent fixture loaded
    await step("s1", "director/load-intent", () => fixture("intent-weekly-report"));
    // plan built from intent
    await step("s2", "director/build-plan", () => ctx.director.plan(intent));
    assert("a1", "oracle/step-count", plan.steps.length, 3);
    assert("a2", "oracle/step-shape", plan.steps.every(hasTitleAndTool), true);
  },
});
