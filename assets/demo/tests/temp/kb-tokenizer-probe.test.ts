// Temporary probe (seed 000 §3.6): not registered, not gating, left out of every report.
import { defineCase } from "../harness/case";
import { fixture } from "../harness/fixtures";

export default defineCase({
  caseId: "kb-tokenizer-probe",
  scope: "temp",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("kb-mixed");
    // text tokenized
    await step("s1", "kb/tokenize", () => ctx.kb.tokenize("季度预算审批流程"));
    assert("a1", "oracle/token-count", tokens.length, 4);
  },
});
