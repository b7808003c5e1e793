// Plan: doc/test-plan/kb-search.md — kb-search-live-rerank
// Oracle: budget-approval.md 排第一
// live: calls the real model (bge-reranker-v2-m3); run with --group live or --case kb-search-live-rerank.
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "kb-search-live-rerank",
  scope: "kb-search/backend/query/live",
  driver: "node-harness",
  model: "bge-reranker-v2-m3",
  async run({ step, assert, ctx }) {
    const ws = await fixture("kb-mixed");
    // query 季度预算审批流程 executed
    await step("s1", "kb/query", () => kb.search("季度预算审批流程", { rerank: true }));
    // rerank model called
    await step("s2", "ai/rerank", () => run.completion());
    assert("a1", "oracle/top-hit", hits[0].file, "budget-approval.md");
  },
});
