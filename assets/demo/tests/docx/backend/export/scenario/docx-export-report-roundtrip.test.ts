// Plan: doc/test-plan/docx.md — docx-export-report-roundtrip
// Oracle: diff 为空
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "docx-export-report-roundtrip",
  scope: "docx/backend/export/scenario",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("docx/weekly-report");
    // weekly-report.md exported
    await step("s1", "docx/export", () => ctx.docx.export(fixture("docx/weekly-report")));
    // weekly-report.docx imported
    await step("s2", "docx/import", () => ctx.docx.import(out));
    assert("a1", "oracle/roundtrip-diff", diff.length, 0);
  },
});
