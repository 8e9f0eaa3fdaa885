import { type Browser, expect, type Page, test } from '@playwright/test';
import { commonPodcastsShown, type ProfileDetails } from '../../shared/src/schemas/profile-details';
import { expectAccessible, expectTapTargets } from './a11y';
import { authHeaders, importOpmlTitles, like, type Person, signIn, updateUser } from './helpers';

// Issue 11: a match's profile details show all three tabs with the right counts (SPEC section 2,
// "Profile details"; section 9: 5 categories, 5 podcasts, 5 listens, and the common count rule).

const VIEWPORT = { width: 390, height: 844 };

// This spec's own catalog titles (no other spec uses them), imported by OPML title so each lands on
// its catalog row and primary category. The partner lists six visible shows and one hidden one.
const PARTNER_VISIBLE = {
  'StarTalk Radio': 'Science',
  'Ologies with Alie Ward': 'Science',
  Unexplainable: 'Science',
  'Hard Fork': 'Technology',
  'Waveform: The MKBHD Podcast': 'Technology',
  'Giant Bombcast': 'Leisure',
} as const;
const PARTNER_HIDDEN = 'Science Friday';
// Four shows both list visibly; the fifth (Science Friday) the partner hides, so it is not common.
const SHARED = ['StarTalk Radio', 'Ologies with Alie Ward', 'Hard Fork', 'Giant Bombcast'];
const MINE = [...SHARED, PARTNER_HIDDEN];

/** Category counts as the partner's visible library gives them, most first, then by name. */
function expectedCategories(): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const category of Object.values(PARTNER_VISIBLE)) counts.set(category, (counts.get(category) ?? 0) + 1);
  return [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

async function markSetUp(person: Person, displayName: string) {
  await updateUser(person, { setupComplete: true, displayName });
  person.name = displayName;
}

async function hide(person: Person, title: string) {
  const list = await person.page.request.get(`/api/users/${person.id}/podcasts`, { headers: authHeaders(person) });
  const entries = (await list.json()) as { id: number; podcast: { name: string } }[];
  const entry = entries.find((e) => e.podcast.name === title);
  expect(entry, `${title} in the library`).toBeTruthy();
  const hidden = await person.page.request.put(`/api/user-podcasts/${entry?.id}`, {
    headers: authHeaders(person),
    data: { hidden: true },
  });
  expect(hidden.ok(), await hidden.text()).toBe(true);
}

/** Me, a partner I have a mutual (romantic) match with, and a stranger nobody is connected to. */
async function people(browser: Browser) {
  const contexts = await Promise.all([0, 1, 2].map(() => browser.newContext({ viewport: VIEWPORT })));
  const [meContext, partnerContext, strangerContext] = contexts;
  const me = await signIn(await meContext!.newPage(), 'pdme');
  const partner = await signIn(await partnerContext!.newPage(), 'pdpartner');
  const stranger = await signIn(await strangerContext!.newPage(), 'pdstranger');
  // Names as people write them (axe checks visible text against accessible names).
  await markSetUp(me, 'Jules Viewer');
  await markSetUp(partner, 'Noor Partner');
  await markSetUp(stranger, 'Kit Stranger');
  await importOpmlTitles(me, MINE, 'pdme');
  await importOpmlTitles(partner, [...Object.keys(PARTNER_VISIBLE), PARTNER_HIDDEN], 'pdpartner');
  await hide(partner, PARTNER_HIDDEN);
  await like(partner.page.request, partner, me);
  await like(me.page.request, me, partner);
  return { me, partner, stranger, close: () => Promise.all(contexts.map((c) => c.close())) };
}

async function details(me: Person, userId: number) {
  return me.page.request.get(`/api/users/${userId}/profile-details?intent=romantic`, { headers: authHeaders(me) });
}

async function scan(page: Page, label: string) {
  await expectAccessible(page, label);
  await expectTapTargets(page, label);
}

test.use({ viewport: VIEWPORT });

test("a match's profile details show all three tabs with the right counts", async ({ browser }) => {
  test.setTimeout(90_000);
  const { me, partner, stranger, close } = await people(browser);
  const { page } = me;
  try {
    // What the server says, checked against what the libraries hold.
    const response = await details(me, partner.id);
    expect(response.ok(), await response.text()).toBe(true);
    const api = (await response.json()) as ProfileDetails;
    // The mutual match: the Matches screen below must lead to the same one.
    expect(api.match, 'the mutual match').not.toBeNull();
    const matchId = api.match?.id ?? 0;
    expect(api.topCategories).toEqual(expectedCategories());
    // Six visible shows, at most five listed; the hidden one nowhere.
    expect(api.topPodcasts).toHaveLength(5);
    const visibleNames = Object.keys(PARTNER_VISIBLE);
    for (const podcast of api.topPodcasts) expect(visibleNames).toContain(podcast.name);
    expect(api.common.count).toBe(SHARED.length);
    const shown = commonPodcastsShown(SHARED.length, api.matchPercentage);
    expect(api.common.podcasts).toHaveLength(shown);
    for (const podcast of api.common.podcasts) expect(SHARED).toContain(podcast.name);

    // From the Matches screen to their profile.
    await page.goto('/matches');
    await page.getByRole('button', { name: 'Dating' }).click();
    const card = page.getByTestId('match-card').filter({ hasText: partner.name });
    await card.getByRole('button', { name: new RegExp(`^${partner.name}`) }).click();
    await expect(page).toHaveURL((url) => url.pathname === `/profile-details/${partner.id}/${matchId}`);
    await expect(page.getByTestId('profile-details-name')).toHaveText(partner.name);
    await expect(page.getByTestId('match-badge')).toHaveText(`${api.matchPercentage}%`);

    // Podcasts: the categories with their counts, the most listened with times listened.
    const tab = (name: string) => page.getByRole('tab', { name });
    await expect(tab('podcasts')).toHaveAttribute('aria-selected', 'true');
    const categories = page.getByTestId('top-categories').getByRole('listitem');
    await expect(categories).toHaveText(
      expectedCategories().map((c) => `${c.name} · ${c.count} ${c.count === 1 ? 'show' : 'shows'}`),
    );
    const podcasts = page.getByTestId('top-podcasts').getByRole('listitem');
    await expect(podcasts).toHaveCount(5);
    for (const [i, podcast] of api.topPodcasts.entries()) {
      await expect(podcasts.nth(i)).toContainText(podcast.name);
      const times = `Listened ${podcast.timesListened} ${podcast.timesListened === 1 ? 'time' : 'times'}`;
      await expect(podcasts.nth(i)).toContainText(times);
    }
    await expect(page.getByText(PARTNER_HIDDEN)).toHaveCount(0);
    await scan(page, 'profile details, Podcasts tab');

    // Activity: OPML imports carry no listens, so the empty state (and the API agrees).
    await tab('activity').click();
    await expect(tab('activity')).toHaveAttribute('aria-selected', 'true');
    if (api.recentListens.length === 0) {
      await expect(page.getByText('No recent listens.')).toBeVisible();
    } else {
      await expect(page.getByTestId('recent-listens').getByRole('listitem')).toHaveCount(api.recentListens.length);
    }
    await scan(page, 'profile details, Activity tab');

    // Common: the sentence with the count, and the shows it lists.
    await tab('common').click();
    await expect(tab('common')).toHaveAttribute('aria-selected', 'true');
    const more = SHARED.length > shown ? ` Here are ${shown} of them.` : '';
    await expect(page.getByTestId('common-summary')).toHaveText(
      `You and ${partner.name} both listen to ${SHARED.length} shows.${more}`,
    );
    const common = page.getByTestId('common-podcasts').getByRole('listitem');
    await expect(common).toHaveCount(shown);
    // Their order follows the match's explanation, which a feed recompute may refresh between the API
    // read above and this screen's own: compare the shows, not their order.
    const listed = await common.allTextContents();
    for (const text of listed)
      expect(
        SHARED.some((name) => text.includes(name)),
        text,
      ).toBe(true);
    await scan(page, 'profile details, Common tab');

    // Send Message opens the chat of this match.
    await page.getByRole('link', { name: 'Send Message' }).click();
    await expect(page).toHaveURL((url) => url.pathname === `/chat/${matchId}`);

    // A stranger's profile is not there for me.
    expect((await details(me, stranger.id)).status()).toBe(404);
    await page.goto(`/profile-details/${stranger.id}`);
    await expect(page.getByRole('heading', { name: 'Profile Not Found' })).toBeVisible();
    await expect(
      page.getByText("We couldn't find this profile. It may have been removed or is no longer available."),
    ).toBeVisible();
    await expect(page.getByText(stranger.name)).toHaveCount(0);
    await scan(page, 'profile details, not found');
    await page.getByRole('link', { name: 'Return to Matches' }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/matches');
  } finally {
    await close();
  }
});
