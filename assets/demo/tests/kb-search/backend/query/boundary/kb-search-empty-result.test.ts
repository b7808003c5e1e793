// Plan: doc/test-plan/kb-search.md — kb-search-empty-result
// Oracle: 返回 0 条，无 error 事件
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "kb-search-empty-result",
  scope: "kb-search/backend/query/boundary",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("kb-notes");
    // index built from kb-notes
    await step("s1", "kb/load-index", () => ctx.kb.index(fixture("kb-notes")));
    // query `zzzz-not-there` executed
    await step("s2", "kb/query", () => kb.search("zzzz-not-there"));
    assert("a1", "oracle/empty", hits.length, 0);
  },
});
