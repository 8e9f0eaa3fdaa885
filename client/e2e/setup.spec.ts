import { expect, type Page, test } from '@playwright/test';
import { expectAccessible, expectTapTargets } from './a11y';
import { devLogin, freshUsername, toasts } from './helpers';

// Issue 11, item 2: a new person is taken to the setup wizard after the first login (through the
// real login form), completes it with a picture upload and an OPML import, and lands on a feed with
// people. Leaving at step 3 and coming back resumes there.
test.use({ viewport: { width: 390, height: 844 } });

// This spec's own catalog titles (no other spec uses them): popular shows, so demo people share them.
// None has a feed URL in the catalog, so the import reads no real feed.
const SHOWS = [
  'The Diary Of A CEO with Steven Bartlett',
  'How I Built This with Guy Raz',
  'The Mel Robbins Podcast',
  'The Bill Simmons Podcast',
];

// A valid 1x1 PNG (the server re-encodes it into its picture sizes).
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function opmlOf(titles: string[]): Buffer {
  const outlines = titles
    .map((title, i) => `<outline type="rss" text="${title}" xmlUrl="https://feeds.example.invalid/setup-${i}.xml"/>`)
    .join('\n');
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>setup</title></head><body>${outlines}</body></opml>`,
  );
}

const stepHeading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name });

async function expectStep(page: Page, n: number, title: string) {
  await expect(stepHeading(page, title)).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Setup progress' })).toHaveAttribute(
    'aria-valuenow',
    String(n * 20),
  );
  await expect(page.getByRole('button', { name: `Step ${n}: ${title}` })).toHaveAttribute('aria-current', 'step');
}

/** axe and tap targets at 390x844, and no horizontal scroll from 320 to 430 px wide. */
async function checkScreen(page: Page, label: string) {
  await expectAccessible(page, label);
  await expectTapTargets(page, label);
  for (const width of [320, 430, 390]) {
    await page.setViewportSize({ width, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect.soft(overflow, `${label} scrolls horizontally at ${width} px`).toBeLessThanOrEqual(0);
  }
}

test('a new person completes the wizard with a picture and an OPML import, then sees people', async ({ page }) => {
  test.setTimeout(120_000);
  const name = freshUsername('setup');
  // The real login form, for an account that has not been set up: it lands on the wizard.
  await devLogin(page, name, { setUp: false });

  // Step 1: intent. Another signed-in screen sends a not-set-up person back here.
  await expectStep(page, 1, 'Choose Intent');
  // Its title once (the heading), and every step circle named under it.
  await expect(page.getByText('Choose Intent', { exact: true })).toHaveCount(1);
  const steps = page.getByRole('navigation', { name: 'Setup steps' });
  for (const label of ['Intent', 'Profile', 'Photo', 'Podcasts', 'Video']) {
    await expect(steps.getByText(label, { exact: true })).toBeVisible();
  }
  await checkScreen(page, 'setup step 1');
  await page.goto('/matches');
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  await expectStep(page, 1, 'Choose Intent');
  await page.getByRole('button', { name: 'Social', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Social', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('button', { name: 'Next' }).click();

  // Step 2: profile info; Next needs a display name.
  await expectStep(page, 2, 'Profile Info');
  const displayName = page.getByLabel('Display name');
  await expect(displayName).toHaveValue(name);
  await displayName.fill('');
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await checkScreen(page, 'setup step 2 without a display name');
  await displayName.fill('Sasha Setup');
  await page.getByLabel('Social tagline').fill('Always up for a podcast walk');
  await page.getByRole('button', { name: 'Next' }).click();

  // Step 3: photo; Next needs a picture. Leaving and coming back (another screen, a reload) resumes here.
  await expectStep(page, 3, 'Profile Photo');
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await checkScreen(page, 'setup step 3');
  await page.goto('/');
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  await expectStep(page, 3, 'Profile Photo');
  await page.reload();
  await expectStep(page, 3, 'Profile Photo');
  // The earlier steps kept what was entered.
  await page.getByRole('button', { name: 'Step 2: Profile Info' }).click();
  await expectStep(page, 2, 'Profile Info');
  await expect(page.getByLabel('Display name')).toHaveValue('Sasha Setup');
  await page.getByRole('button', { name: 'Next' }).click();
  await expectStep(page, 3, 'Profile Photo');

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose a photo' }).click();
  await (await chooser).setFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG_1X1 });
  await expect(page.getByRole('progressbar', { name: 'Upload progress' })).toHaveAttribute('aria-valuenow', '100');
  await expect(page.getByText('Upload complete')).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();

  // Step 4: no Spotify here, so an OPML import of shows demo people listen to.
  await expectStep(page, 4, 'Streaming connection');
  await expect(page.getByText(/Matching is based on the podcasts you share/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Skip for now' })).toBeVisible();
  await checkScreen(page, 'setup step 4');
  await page
    .getByTestId('opml-file-input')
    .setInputFiles({ name: 'setup.opml', mimeType: 'text/x-opml', buffer: opmlOf(SHOWS) });
  await expect(toasts(page).getByText(`Imported ${SHOWS.length} podcasts`, { exact: false })).toBeVisible();
  await expect(page.getByTestId('setup-library-count')).toHaveText(`${SHOWS.length} podcasts in your library`);
  await page.getByRole('button', { name: 'Next' }).click();

  // Step 5: the summary and the video card's place.
  await expectStep(page, 5, 'Video Intro');
  await expect(page.getByTestId('setup-summary-name')).toHaveText('Sasha Setup');
  await expect(page.getByLabel('Profile summary').getByText('Always up for a podcast walk')).toBeVisible();
  // The AI video card: the imported shows meet its requirements; its checklist names the tagline's kind.
  const videoCard = page.getByTestId('setup-video-slot');
  await expect(videoCard.getByTestId('ai-video-badge')).toHaveText('Ready to Generate');
  await expect(videoCard.getByTestId('ai-video-checklist')).toContainText(
    'Tagline (Custom): Always up for a podcast walk',
  );
  await expect(videoCard.getByRole('button', { name: 'Generate AI Video' })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Skip this step' })).toBeVisible();
  // The footer in two rows at most, even at 320 px: Complete Setup, then Back beside the skip.
  for (const width of [320, 390]) {
    await page.setViewportSize({ width, height: 844 });
    const [complete, back, skip] = await Promise.all(
      ['Complete Setup', 'Back', 'Skip this step'].map((name) =>
        page.getByRole('button', { name, exact: true }).boundingBox(),
      ),
    );
    expect(complete && back && skip, 'the footer buttons are on screen').toBeTruthy();
    if (complete && back && skip) {
      expect(Math.abs(back.y - skip.y), `Back and Skip on one row at ${width} px`).toBeLessThan(2);
      expect(back.y, `Complete Setup above them at ${width} px`).toBeGreaterThanOrEqual(complete.y + complete.height);
    }
  }
  await checkScreen(page, 'setup step 5');
  await page.getByRole('button', { name: 'Complete Setup' }).click();

  await expect(toasts(page).getByText('Setup Complete', { exact: true })).toBeVisible();
  await expect(toasts(page).getByText('Your profile has been set up successfully!')).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByTestId('user-display-name')).toHaveText('Sasha Setup');
  await expect(page.getByRole('button', { name: 'Social', exact: true })).toHaveAttribute('aria-pressed', 'true');

  // A feed with people who share those shows (the feed is recomputed in the background).
  await expect(async () => {
    await page.goto('/');
    await expect(page.getByTestId('feed-card').first()).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 60_000 });
  await expect(page).toHaveURL((url) => url.pathname === '/');

  // Set up now: the other screens open, and /setup stays open for editing.
  await page.goto('/profile');
  await expect(page).toHaveURL((url) => url.pathname === '/profile');
  await page.goto('/setup');
  await expectStep(page, 1, 'Choose Intent');
});
