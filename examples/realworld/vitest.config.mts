import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // the backend and temp cases; e2e specs belong to Playwright
    include: ['tests/**/*.{test,spec}.?(c|m)[jt]s?(x)'],
    exclude: ['tests/**/e2e/**', 'tests/logs/**', 'node_modules/**'],
    // the files one after another: their run folders open and close in turn
    fileParallelism: false,
  },
});
