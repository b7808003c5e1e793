// Plan: doc/test-plan/kb-search.md — search-panel-type-and-see
// Oracle: 结果列表出现 3 项
import { defineCase } from "../../../../harness/case";

export default defineCase({
  caseId: "search-panel-type-and-see",
  scope: "kb-search/e2e/search-panel/basic",
  driver: "playwright",
  async run({ step, assert, page }) {
    // search panel opened
    await step("s1", "search-panel/open", () => page.click("#open-search"));
    // query typed
    await step("s2", "search-panel/type", () => page.fill("#search-input", "release"));
    assert("a1", "oracle/result-count", await rows.count(), 3);
  },
});
