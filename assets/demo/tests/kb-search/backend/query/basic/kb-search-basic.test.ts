// Plan: doc/test-plan/kb-search.md — kb-search-basic
// Oracle: 返回 3 条结果且第一条为 release-notes.md
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "kb-search-basic",
  scope: "kb-search/backend/query/basic",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("kb-notes");
    // index built from kb-notes
    await step("s1", "kb/load-index", () => ctx.kb.index(fixture("kb-notes")));
    // query `release` executed
    await step("s2", "kb/query", () => kb.search("release"));
    assert("a1", "oracle/hit-count", hits.length, 3);
    assert("a2", "oracle/top-hit", hits[0].file, "release-notes.md");
  },
});
