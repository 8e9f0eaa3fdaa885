import { type Browser, expect, type Page, test } from '@playwright/test';
import { CHAT_TEXTS } from '../../shared/src/constants';
import { expectAccessible, expectTapTargets } from './a11y';
import { exposeSocket, like, matchIdOf, type Person, shareAShow, signIn, toasts, waitUntilLive } from './helpers';

// The chat's safety nudge (docs/chat.md, "The safety nudge"), with two people in their own browsers
// at 390 px wide: a flagged text asks its sender "Are you sure?" (Edit or Send anyway); once sent, its
// recipient sees "Does this bother you?" with a Report that opens the report; a normal message shows
// neither.

const HURTFUL = 'you are a f u c k i n g idiot';
const NORMAL = 'Loved the last Radiolab episode, the one about colours. A classic!';
const REPLY = 'Ha, Scunthorpe came up in it too.';

async function personAt390(browser: Browser, prefix: string): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await exposeSocket(context);
  return signIn(await context.newPage(), prefix);
}

const input = (page: Page) => page.getByPlaceholder(CHAT_TEXTS.placeholder);
const question = (page: Page) => page.getByRole('alertdialog', { name: 'Are you sure?' });
const bubble = (page: Page, text: string) => page.getByTestId('message').filter({ hasText: text });

test('a flagged message: "Are you sure?" for the sender, "Does this bother you? Report" for the recipient; a normal one shows neither', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const a = await personAt390(browser, 'nudgeA');
  const b = await personAt390(browser, 'nudgeB');
  try {
    await shareAShow(a, b);
    await like(b.page.request, b, a);
    await like(a.page.request, a, b);
    const matchId = await matchIdOf(a, b);
    for (const p of [a, b]) {
      await p.page.goto(`/chat/${matchId}`);
      await waitUntilLive(p.page);
    }
    await expect(a.page.getByTestId('presence')).toHaveText('Online');

    // A normal message goes at once: no question for A, no report line at B.
    await input(a.page).fill(NORMAL);
    await input(a.page).press('Enter');
    await expect(bubble(b.page, NORMAL)).toBeVisible();
    await expect(question(a.page)).toHaveCount(0);
    await expect(input(a.page)).toHaveValue('');

    // A flagged text: the question, with the focus on Edit; nothing reaches B.
    await input(a.page).fill(HURTFUL);
    await input(a.page).press('Enter');
    await expect(question(a.page)).toBeVisible();
    await expect(question(a.page)).toContainText('This message may come across as hurtful.');
    await expect(question(a.page).getByRole('button', { name: 'Edit' })).toBeFocused();
    await expect(input(a.page)).toHaveValue(HURTFUL);
    // For people to look at (test-results/e2e/chat-nudge-*/): nothing overlapping, readable.
    await a.page.screenshot({ path: test.info().outputPath('composer-nudge-390.png') });
    // Nothing overlaps: the question sits above the input, inside the screen.
    const panel = await question(a.page).boundingBox();
    const field = await input(a.page).boundingBox();
    expect(panel && field && panel.y + panel.height <= field.y, 'the question above the input').toBe(true);
    expect(panel && panel.x >= 0 && panel.x + panel.width <= 390, 'the question inside 390 px').toBe(true);
    await expectAccessible(a.page, '/chat asking "Are you sure?"');
    await expectTapTargets(a.page, '/chat asking "Are you sure?"');

    // Edit (here: Escape) goes back to the text; Enter asks again; Send anyway sends it.
    await a.page.keyboard.press('Escape');
    await expect(question(a.page)).toHaveCount(0);
    await expect(input(a.page)).toBeFocused();
    await expect(input(a.page)).toHaveValue(HURTFUL);
    await input(a.page).press('Enter');
    await question(a.page).getByRole('button', { name: 'Send anyway' }).click();
    await expect(question(a.page)).toHaveCount(0);
    await expect(input(a.page)).toHaveValue('');
    await expect(bubble(a.page, HURTFUL)).toHaveAttribute('data-pending', 'false');

    // B sees it with "Does this bother you?" under it; A never sees that line under their own.
    const received = bubble(b.page, HURTFUL);
    await expect(received).toBeVisible();
    await expect(received.getByText('Does this bother you?')).toBeVisible();
    await expect(bubble(b.page, NORMAL).getByText('Does this bother you?')).toHaveCount(0);
    await expect(a.page.getByText('Does this bother you?')).toHaveCount(0);

    // B's normal reply: nothing at A, and no report line anywhere at B but under the flagged one.
    await input(b.page).fill(REPLY);
    await input(b.page).press('Enter');
    await expect(bubble(a.page, REPLY)).toBeVisible();
    await expect(a.page.getByText('Does this bother you?')).toHaveCount(0);
    await expect(question(b.page)).toHaveCount(0);
    await expect(b.page.getByText('Does this bother you?')).toHaveCount(1);
    await b.page.screenshot({ path: test.info().outputPath('recipient-line-390.png') });
    await expectAccessible(b.page, '/chat with "Does this bother you?"');
    await expectTapTargets(b.page, '/chat with "Does this bother you?"');

    // Report opens the report of A, harassment chosen; sending it is confirmed.
    await received.getByRole('button', { name: `Report ${a.name}` }).click();
    const dialog = b.page.getByRole('dialog', { name: `Report ${a.name}` });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('radio', { name: 'Harassment' })).toBeChecked();
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await expect(toasts(b.page).getByText('Report sent', { exact: true })).toBeVisible();
    await expect(dialog).toHaveCount(0);
  } finally {
    await Promise.all([a.page.context().close(), b.page.context().close()]);
  }
});
