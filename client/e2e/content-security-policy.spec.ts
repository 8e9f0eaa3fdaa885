import { expect, test } from '@playwright/test';
import { signIn } from './helpers';

// The page's Content-Security-Policy in Chromium (server/src/http/content-security-policy.ts): the
// app itself runs without a single violation, its socket upgrades to a WebSocket on our own origin,
// and a script trying to connect or load media anywhere else is blocked.
const E2E_SOCKET_FLAG = 'podmatch.e2e';

type TestWindow = {
  __podmatchSocket?: { connected: boolean; io: { engine?: { transport?: { name: string } } } };
  __cspViolations?: { directive: string; blocked: string }[];
};

test('the policy lets the app work and blocks connections and media elsewhere', async ({ browser }) => {
  const context = await browser.newContext();
  await context.addInitScript((flag) => {
    localStorage.setItem(flag, '1');
    const seen: { directive: string; blocked: string }[] = [];
    Object.assign(window, { __cspViolations: seen });
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push({ directive: event.effectiveDirective, blocked: event.blockedURI }),
    );
  }, E2E_SOCKET_FLAG);
  const page = await context.newPage();
  await signIn(page, 'csp');

  // Socket.IO starts with polling and upgrades: the WebSocket to our origin is allowed.
  await expect
    .poll(() => page.evaluate(() => (window as unknown as TestWindow).__podmatchSocket?.io.engine?.transport?.name))
    .toBe('websocket');
  await expect(page.getByTestId('user-display-name')).toBeVisible();
  // zod probes whether eval works (a `Function('')` in try/catch) and falls back when it does not:
  // script-src refusing it is expected and harmless; nothing else may be refused.
  const violations = (await page.evaluate(() => (window as unknown as TestWindow).__cspViolations)) ?? [];
  expect(violations.filter((v) => v.blocked !== 'eval')).toEqual([]);

  // What an injected script would do with what it read: another origin (same machine, other port).
  const elsewhere = new URL(page.url());
  elsewhere.port = String(Number(elsewhere.port) + 1);
  const wsElsewhere = `ws://${elsewhere.host}/socket.io/?EIO=4&transport=websocket`;
  const httpElsewhere = `${elsewhere.origin}/collect`;
  // https: the policy once allowed media from any https origin.
  const mediaElsewhere = `https://${elsewhere.host}/clip.mp4`;
  await page.evaluate(
    ({ ws, url, media }) => {
      try {
        new WebSocket(ws);
      } catch {
        // Chromium reports the violation and may also throw
      }
      void fetch(url, { mode: 'no-cors' }).catch(() => undefined);
      const video = document.createElement('video');
      video.src = media;
      document.body.append(video);
    },
    { ws: wsElsewhere, url: httpElsewhere, media: mediaElsewhere },
  );
  await expect
    .poll(async () =>
      ((await page.evaluate(() => (window as unknown as TestWindow).__cspViolations)) ?? [])
        .filter((v) => v.blocked !== 'eval')
        .map((v) => v.directive)
        .sort(),
    )
    .toEqual(['connect-src', 'connect-src', 'media-src']);
  await context.close();
});
