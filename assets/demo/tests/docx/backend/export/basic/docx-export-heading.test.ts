// Plan: doc/test-plan/docx.md — docx-export-heading
// Oracle: docx 中 3 个段落样式为 Heading1/Heading2/Heading2
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "docx-export-heading",
  scope: "docx/backend/export/basic",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("docx/heading");
    // heading.md exported
    await step("s1", "docx/export", () => ctx.docx.export(fixture("docx/heading")));
    assert("a1", "oracle/heading-styles", styles, ["Heading1", "Heading2", "Heading2"]);
  },
});
