// Plan: doc/test-plan/kb-search.md — search-panel-timeout-message
// Oracle: 5 秒内显示『检索超时，请重试』
// demo-outcome: failed — the demo runner (scripts/test-workflow.sh) fails this case on purpose.
import { defineCase } from "../../../../harness/case";

export default defineCase({
  caseId: "search-panel-timeout-message",
  scope: "kb-search/e2e/search-panel/boundary",
  driver: "playwright",
  async run({ step, assert, page }) {
    // search panel opened
    await step("s1", "search-panel/open", () => page.click("#open-search"));
    // query typed with 6000 ms injected delay
    await step("s2", "search-panel/type", () => page.fill("#search-input", "release"));
    assert("a1", "oracle/timeout-message", await notice.textContent(), "检索超时，请重试");
  },
});
