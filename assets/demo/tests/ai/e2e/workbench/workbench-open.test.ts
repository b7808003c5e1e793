// Plan: doc/test-plan/ai.md — workbench-open
// Oracle: 标题为『工作台』
import { defineCase } from "../../../harness/case";

export default defineCase({
  caseId: "workbench-open",
  scope: "ai/e2e/workbench",
  driver: "playwright",
  async run({ step, assert, page }) {
    // workbench opened
    await step("s1", "workbench/open", () => page.goto("/workbench"));
    assert("a1", "oracle/title", await page.title(), "工作台");
  },
});
