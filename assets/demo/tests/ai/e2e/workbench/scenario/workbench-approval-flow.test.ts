// Plan: doc/test-plan/ai.md — workbench-approval-flow
// Oracle: 审批弹窗出现一次，批准后会话状态为 completed
import { defineCase } from "../../../../harness/case";

export default defineCase({
  caseId: "workbench-approval-flow",
  scope: "ai/e2e/workbench/scenario",
  driver: "playwright",
  // keep the video of this flow: the approval dialog is easier to judge moving
  keepVideo: true,
  async run({ step, assert, page }) {
    // workbench opened
    await step("s1", "workbench/open", () => page.goto("/workbench"));
    // request submitted
    await step("s2", "workbench/submit-request", () => page.fill("#prompt", "整理会议纪要"));
    // approve clicked in approval dialog
    await step("s3", "workbench/approve", () => page.click("text=批准"));
    // session status observed
    await step("s4", "workbench/await-completed", () => page.waitForSelector(".status-completed"));
    assert("a1", "oracle/dialog-once", dialogCount, 1);
    assert("a2", "oracle/session-completed", await status.textContent(), "completed");
  },
});
