// Plan: doc/test-plan/ai.md — workbench-plan-artifact-smoke
// Oracle: 计划卡片可见，产物链接指向 weekly-report.docx
import { defineCase } from "../../../../harness/case";

export default defineCase({
  caseId: "workbench-plan-artifact-smoke",
  scope: "ai/e2e/workbench/basic",
  driver: "playwright",
  async run({ step, assert, page }) {
    // workbench opened
    await step("s1", "workbench/open", () => page.goto("/workbench"));
    // request submitted
    await step("s2", "workbench/submit-request", () => page.fill("#prompt", "生成周报"));
    // plan card rendered
    await step("s3", "workbench/await-plan-card", () => page.waitForSelector(".plan-card"));
    assert("a1", "oracle/plan-card-visible", await planCard.isVisible(), true);
    assert("a2", "oracle/artifact-link", await link.textContent(), "weekly-report.docx");
  },
});
