// TODO: register in doc/test-plan/docx.md before this case counts as formal.
import { defineCase } from "../../../../harness/case";
import { fixture } from "../../../../harness/fixtures";

export default defineCase({
  caseId: "docx-export-huge-table",
  scope: "docx/backend/export/boundary",
  driver: "node-harness",
  async run({ step, assert, ctx }) {
    const ws = await fixture("docx/huge-table");
    // huge-table.md exported
    await step("s1", "docx/export", () => ctx.docx.export(fixture("docx/huge-table")));
    assert("a1", "oracle/row-count", table.rows, 2000);
  },
});
