import { defineConfig } from '@playwright/test';

// the workflow (scripts/test-workflow.mjs) picks a free port (TEST_PORT) and a
// report folder per run, and gives its reporters on the command line
const port = Number(process.env.TEST_PORT ?? 4173);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: 'tests',
  testMatch: /\/e2e\/.*\.(spec|test)\.[cm]?[jt]sx?$/,
  testIgnore: ['**/logs/**'],
  workers: 1,
  retries: 0,
  timeout: 20_000,
  outputDir: process.env.PW_OUTPUT_DIR ?? 'test-results',
  reporter: [
    ['./scripts/playwright-reporter.mjs'],
    ['html', { open: 'never', outputFolder: process.env.PW_HTML_DIR ?? 'playwright-report' }],
  ],
  use: {
    baseURL,
    trace: 'on',
    screenshot: 'only-on-failure',
    video: 'off',
    // the system Chromium (Debian's `chromium`), never a downloaded browser
    launchOptions: { executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium' },
  },
  webServer: {
    command: `node scripts/serve.mjs ${port}`,
    url: `${baseURL}/`,
    reuseExistingServer: false,
    timeout: 20_000,
  },
});
