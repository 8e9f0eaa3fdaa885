import { fileURLToPath } from 'node:url';
import { defineConfig, devices } from '@playwright/test';

// Runs against an already running full stack: E2E_BASE_URL=http://localhost:5000 npx playwright test -c client/e2e
const baseURL = process.env.E2E_BASE_URL;
if (!baseURL) throw new Error('E2E_BASE_URL is required (the URL of a running PodMatch stack)');

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  testDir: here,
  testMatch: '*.spec.ts',
  outputDir: fileURLToPath(new URL('../../test-results/e2e', import.meta.url)),
  // Spec files run side by side (the tests of one file in order): each signs in people of its own and
  // gives them shows no other spec uses (helpers.ts), so no spec's people come first in another's feed.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  fullyParallel: false,
  reporter: 'list',
  timeout: 30_000,
  // A condition that holds ends its wait at once; the deadline is for a machine under load (two
  // browsers starting beside the heaviest spec once kept a first page from showing within 10 s).
  expect: { timeout: 15_000 },
  use: {
    baseURL,
    // Recording a trace (actions, DOM snapshots, network) costs every test a tenth of its CPU, kept or
    // not, so it is off unless asked for: E2E_TRACE=on keeps a failed test's trace (without the
    // screencast, which cost a fifth of the tier's CPU). The failure screenshot is always kept.
    trace: process.env.E2E_TRACE === 'on' ? { mode: 'retain-on-failure', screenshots: false } : 'off',
    screenshot: 'only-on-failure',
    // The service worker (docs/notifications.md) precaches the whole build in every new context:
    // only pwa.spec.ts, which tests it, lets it register.
    serviceWorkers: 'block',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Pixel 7'],
        // Layout is checked in CSS pixels; drawing each at 2.6 device pixels only cost CPU. Tests
        // that take screenshots for people to look at ask for more (test.use).
        deviceScaleFactor: 1,
        browserName: 'chromium',
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
});
