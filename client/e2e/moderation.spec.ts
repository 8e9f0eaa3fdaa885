import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Browser, expect, type Page, test } from '@playwright/test';
import { expectAccessible, expectTapTargets } from './a11y';
import { like, type Person, screenshotForDocs, sendMessage, shareAShow, signIn } from './helpers';

// The moderation story in separate browsers (docs/moderation.md): a person reports a harasser after
// three messages; a moderator (role granted with `npm run admin`) sees the report with the messages
// and suspends the harasser for 7 days; the harasser's open chat ends with the statement of reasons,
// their sign-in is refused with the end date, the harasser vanishes from the victim's Matches; the
// harasser appeals from the login screen; a second moderator reverses it; the harasser is told.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const DATABASE_URL = process.env.E2E_DATABASE_URL ?? '';
if (!DATABASE_URL) throw new Error('E2E_DATABASE_URL is required (npm test sets it)');

/** `npm run admin -- grant <username> moderator`, as an operator would run it. */
function grantModerator(username: string) {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'grant', username, 'moderator'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL },
    encoding: 'utf8',
  });
  expect(out).toContain('is now a moderator');
}

async function person(browser: Browser, prefix: string, viewport?: { width: number; height: number }) {
  const context = await browser.newContext(viewport ? { viewport } : {});
  return signIn(await context.newPage(), prefix);
}

async function moderatorOn(browser: Browser, prefix: string, viewport?: { width: number; height: number }) {
  const moderator = await person(browser, prefix, viewport);
  grantModerator(moderator.name);
  // The role is part of the person's own profile: the profile offers the moderation screen.
  await moderator.page.goto('/profile');
  await moderator.page.getByRole('link', { name: /Moderation/ }).click();
  await expect(moderator.page.getByRole('heading', { name: 'Moderation', level: 1 })).toBeVisible();
  return moderator;
}

const suspendedPanel = (page: Page) => page.getByRole('region', { name: /Your account is suspended until/ });

test('a reported harasser is suspended by a moderator, appeals, and a second moderator reverses it', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const victim = await person(browser, 'victim');
  const harasser = await person(browser, 'harasser');
  const people: Person[] = [victim, harasser];
  try {
    await shareAShow(victim, harasser);
    await like(harasser.page.request, harasser, victim);
    await like(victim.page.request, victim, harasser);
    const list = await victim.page.request.get(`/api/users/${victim.id}/matches?intent=romantic`, {
      headers: { authorization: `Bearer ${victim.token}` },
    });
    const matchId = ((await list.json()) as { id: number; matchedUser: { id: number } }[]).find(
      (m) => m.matchedUser.id === harasser.id,
    )?.id;
    expect(matchId).toBeTruthy();
    const threats = ['Why are you ignoring me?', 'Answer me now.', 'You will regret this.'];
    for (const text of threats) await sendMessage(harasser, matchId ?? 0, text);

    // The harasser has the chat open; the victim reports from Matches.
    await harasser.page.goto(`/chat/${matchId}`);
    await expect(harasser.page.getByText(threats[2] as string)).toBeVisible();
    await victim.page.goto('/matches');
    await victim.page.getByRole('button', { name: new RegExp(`More options for ${harasser.name}`) }).click();
    await victim.page.getByRole('dialog').getByRole('button', { name: 'Report', exact: true }).click();
    const report = victim.page.getByRole('dialog', { name: `Report ${harasser.name}` });
    await report.getByRole('radio', { name: 'Harassment' }).check();
    await report.getByRole('textbox', { name: /Details/ }).fill('Threats after I stopped answering.');
    await report.getByRole('button', { name: 'Send report' }).click();
    await expect(report).toHaveCount(0);

    // A moderator on a laptop: the queue, the person, the messages, claim, suspend for 7 days.
    const first = await moderatorOn(browser, 'mod1', { width: 1280, height: 800 });
    people.push(first);
    const page = first.page;
    await page
      .getByRole('list', { name: 'Queue' })
      .getByRole('button', { name: new RegExp(harasser.name) })
      .click();
    const file = page.getByRole('article', { name: new RegExp(harasser.name) });
    const evidence = file.getByRole('article', { name: `Report by @${victim.name}` });
    for (const text of threats) {
      await expect(evidence.getByRole('list', { name: 'Reported messages' }).getByText(text)).toBeVisible();
    }
    await file.getByRole('button', { name: 'Claim' }).click();
    await expect(file.getByText('You are handling this person.')).toBeVisible();
    // The choices are labels around visually hidden radios: a person clicks the label.
    await file
      .locator('label')
      .filter({ has: page.getByRole('radio', { name: 'Suspend' }) })
      .click();
    await expect(file.getByRole('radio', { name: 'Suspend' })).toBeChecked();
    await expect(file.getByRole('spinbutton', { name: 'Days' })).toHaveValue('7');
    await file.getByRole('textbox', { name: 'Explanation' }).fill('You sent threatening messages to another member.');
    await screenshotForDocs(page, 'moderation-subject-desktop');
    await expectAccessible(page, '/moderation with a person open');
    await file.getByRole('button', { name: 'Apply' }).click();

    // The harasser's open chat ends, with the statement of reasons.
    await expect(harasser.page).toHaveURL((url) => url.pathname === '/login', { timeout: 10_000 });
    await expect(suspendedPanel(harasser.page)).toBeVisible();
    await expect(suspendedPanel(harasser.page)).toContainText('You sent threatening messages to another member.');
    // The victim's Matches no longer have them.
    await victim.page.goto('/matches');
    await expect(
      victim.page.getByRole('button', { name: new RegExp(`More options for ${harasser.name}`) }),
    ).toHaveCount(0);

    // A sign-in is refused with the end date; the harasser appeals from there.
    await harasser.page.getByRole('button', { name: /Back to sign in/ }).click();
    await harasser.page.getByLabel('Or choose any username').fill(harasser.name);
    await harasser.page.getByRole('button', { name: 'Login as Developer' }).click();
    const panel = suspendedPanel(harasser.page);
    await expect(panel).toBeVisible();
    const until = new Date(Date.now() + 7 * 24 * 3600 * 1000);
    await expect(panel).toContainText(String(until.getUTCFullYear()));
    await panel.getByRole('button', { name: 'Appeal' }).click();
    await panel
      .getByRole('textbox', { name: 'Why should we look at it again?' })
      .fill('I was upset, but I never threatened anyone.');
    await panel.getByRole('button', { name: 'Send appeal' }).click();
    await expect(panel.getByText(/Your appeal was sent/)).toBeVisible();
    await screenshotForDocs(harasser.page, 'suspended-sign-in');
    await expectAccessible(harasser.page, '/login of a suspended person');
    await expectTapTargets(harasser.page, '/login of a suspended person');

    // A second moderator, on a phone, reverses it.
    const second = await moderatorOn(browser, 'mod2');
    people.push(second);
    await second.page.getByRole('tab', { name: 'Appeals' }).click();
    const appeal = second.page.getByRole('article', { name: /Appeal by/ }).filter({ hasText: 'never threatened' });
    await appeal
      .getByRole('textbox', { name: 'Your answer (the person reads this)' })
      .fill('On a second look the messages were rude but not a threat.');
    await screenshotForDocs(second.page, 'moderation-appeal-phone');
    await expectAccessible(second.page, '/moderation appeals on a phone');
    await expectTapTargets(second.page, '/moderation appeals on a phone');
    await appeal.getByRole('button', { name: 'Reverse' }).click();
    await expect(second.page.getByText('No appeals are waiting for you.')).toBeVisible();

    // The harasser signs in again and is told.
    // The tab still shows the statement and the sent appeal; from there, back to the sign-in.
    await harasser.page.goto('/login');
    await harasser.page.getByRole('button', { name: /Back to sign in/ }).click();
    await harasser.page.getByLabel('Or choose any username').fill(harasser.name);
    await harasser.page.getByRole('button', { name: 'Login as Developer' }).click();
    const outcome = harasser.page.getByRole('dialog', { name: 'Your appeal was accepted' });
    await expect(outcome).toBeVisible();
    await expect(outcome).toContainText('rude but not a threat');
    await expectAccessible(harasser.page, 'the appeal outcome dialog');
    await outcome.getByRole('button', { name: 'Got it' }).click();
    await expect(outcome).toHaveCount(0);
  } finally {
    await Promise.all(people.map((p) => p.page.context().close()));
  }
});
