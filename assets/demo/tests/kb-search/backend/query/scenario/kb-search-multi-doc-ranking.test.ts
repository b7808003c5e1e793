// Plan: doc/test-plan/kb-search.md — kb-search-multi-doc-ranking
// Oracle: 第一条为 budget-approval.md
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "kb-search-multi-doc-ranking",
  scope: "kb-search/backend/query/scenario",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("kb-mixed");
    // index built from kb-mixed
    await step("s1", "kb/load-index", () => ctx.kb.index(fixture("kb-mixed")));
    // query 季度预算审批流程 executed
    await step("s2", "kb/query", () => kb.search("季度预算审批流程"));
    assert("a1", "oracle/top-hit", hits[0].file, "budget-approval.md");
  },
});
