import { describe, expect, it } from 'vitest';

// CASE_ID: planned in doc/test-plan/DOMAIN.md (What / Why / How / Oracle / Not)
describe('CASE_ID', () => {
  it('s1 does what the plan says', () => {
    // the oracle's named assertion
    expect(true).toBe(true);
  });
});
