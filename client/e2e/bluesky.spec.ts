import { expect, test } from '@playwright/test';
import type { ProfileDetails } from '../../shared/src/schemas/profile-details';
import { authHeaders, freshUsername, like, shareAShow, signIn, toasts } from './helpers';

// Runs against the AT Protocol stand-in the e2e tier starts (scripts/bluesky-stand-in.ts): every
// handle under `.test` exists, and its OAuth server approves at once. The real client library does
// the DPoP, PKCE and PAR legs; the browser follows the redirects.

test('link Bluesky on the profile; a match sees the verified handle on the profile details', async ({ browser }) => {
  test.setTimeout(60_000);
  const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
  try {
    const me = await signIn(await contexts[0]!.newPage(), 'bsme');
    const partner = await signIn(await contexts[1]!.newPage(), 'bspartner');
    await shareAShow(me, partner);
    await like(partner.page.request, partner, me);
    await like(me.page.request, me, partner);
    const handle = `${freshUsername('bs')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')}.test`;

    const { page } = me;
    await page.goto('/profile');
    const card = page.getByTestId('bluesky-card');
    await expect(card.getByTestId('bluesky-state')).toHaveText('Not linked');
    await card.getByLabel('Your Bluesky handle').fill(`@${handle}`);
    await card.getByRole('button', { name: 'Link Bluesky' }).click();
    // To the stand-in's authorization server, back through the callback, claimed by this account.
    await expect(page).toHaveURL((url) => url.pathname === '/profile' && !url.searchParams.has('bluesky_link'));
    await expect(toasts(page).getByText('Bluesky linked')).toBeVisible();
    await expect(card.getByTestId('bluesky-state')).toHaveText(`Linked as @${handle}`);
    await expect(card.getByTestId('bluesky-badge')).toHaveText(`@${handle}`);

    // The partner opens my profile details from our match: the verified badge links to Bluesky.
    const response = await partner.page.request.get(`/api/users/${me.id}/profile-details?intent=romantic`, {
      headers: authHeaders(partner),
    });
    const details = (await response.json()) as ProfileDetails;
    expect(details.bluesky?.handle).toBe(handle);
    const did = details.bluesky?.did ?? '';
    expect(did).toMatch(/^did:plc:[a-z2-7]{24}$/);
    await partner.page.goto(`/profile-details/${me.id}/${details.match?.id}`);
    const badge = partner.page.getByTestId('bluesky-badge');
    await expect(badge).toHaveText(`@${handle}`);
    await expect(badge).toHaveAttribute('href', `https://bsky.app/profile/${encodeURIComponent(did)}`);

    // Unlinking takes it away again.
    await card.getByRole('button', { name: 'Unlink' }).click();
    await expect(card.getByTestId('bluesky-state')).toHaveText('Not linked');
    await partner.page.reload();
    await expect(partner.page.getByTestId('profile-details-name')).toBeVisible();
    await expect(partner.page.getByTestId('bluesky-badge')).toHaveCount(0);
  } finally {
    await Promise.all(contexts.map((c) => c.close()));
  }
});

test('the setup wizard links Bluesky through its card and comes back to the wizard', async ({ page }) => {
  test.setTimeout(60_000);
  const me = await signIn(page, 'bswizard', { setUp: false });
  await page.request.put(`/api/users/${me.id}`, { headers: authHeaders(me), data: { setupStep: 3 } });
  await page.goto('/setup');
  await expect(page.getByRole('heading', { level: 2, name: 'Streaming connection' })).toBeVisible();
  const handle = `${freshUsername('bsw')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')}.test`;
  const card = page.getByTestId('bluesky-card');
  await card.getByLabel('Your Bluesky handle').fill(handle);
  await card.getByRole('button', { name: 'Link Bluesky' }).click();
  // Through the stand-in's approval and the callback, back to the wizard's same step, linked.
  await expect(page).toHaveURL((url) => url.pathname === '/setup' && !url.searchParams.has('bluesky_link'));
  await expect(toasts(page).getByText('Bluesky linked')).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'Streaming connection' })).toBeVisible();
  await expect(card.getByTestId('bluesky-state')).toHaveText(`Linked as @${handle}`);
  expect(new URL(page.url()).searchParams.has('handle')).toBe(false);
});
