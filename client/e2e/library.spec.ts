import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { devLogin, toasts } from './helpers';

// Three feeds on a domain that never resolves: the worker fails to read them, which is fine, the
// entries keep the titles from the OPML file.
const OPML_FIXTURE = fileURLToPath(new URL('./fixtures/library.opml', import.meta.url));
const IMPORTED = ['Example Daily Briefing', 'Example Tech Weekly', 'Example Garden Hour'];
// A show of the demo catalog the e2e database is seeded with.
const CATALOG_SHOW = 'Radiolab';

test('podcast library: import OPML, hide one, search the catalog and add a show', async ({ page }) => {
  await devLogin(page);
  await page.getByTestId('nav-profile').click();
  await expect(page).toHaveURL((url) => url.pathname === '/profile');
  const library = page.getByTestId('podcast-library');
  await expect(library.getByRole('heading', { name: 'My Top Podcasts' })).toBeVisible();
  await expect(library.getByTestId('library-empty')).toBeVisible();

  await library.getByTestId('opml-file-input').setInputFiles(OPML_FIXTURE);
  await expect(toasts(page).getByText('Imported 3 podcasts — reading their feeds…')).toBeVisible();
  const list = library.getByRole('list', { name: 'My podcasts' });
  for (const name of IMPORTED) await expect(list.getByText(name, { exact: true })).toBeVisible();
  await expect(list.getByTestId('library-entry')).toHaveCount(3);
  await expect(list.getByText('From your podcast app', { exact: true })).toHaveCount(3);

  // Hide one: the toggle flips at once and the server keeps it after a reload.
  await list.getByRole('button', { name: 'Hide Example Tech Weekly' }).click();
  await expect(list.getByRole('button', { name: 'Show Example Tech Weekly' })).toBeVisible();
  await expect(toasts(page).getByText('Podcast Updated')).toBeVisible();
  await page.reload();
  const techRow = list.getByTestId('library-entry').filter({ hasText: 'Example Tech Weekly' });
  await expect(techRow).toHaveAttribute('data-hidden', 'true');
  await expect(techRow.getByRole('button', { name: 'Show Example Tech Weekly' })).toBeVisible();

  // Search the catalog (typo tolerant) and add a show.
  const search = library.getByRole('searchbox', { name: 'Add podcasts' });
  await search.fill(CATALOG_SHOW.toLowerCase());
  const results = library.getByRole('list', { name: 'Search results' });
  await expect(results.or(library.getByText(/No podcasts match/))).toBeVisible();
  const addCatalogShow = results.getByRole('button', { name: `Add ${CATALOG_SHOW}`, exact: true });
  let added = CATALOG_SHOW;
  if ((await addCatalogShow.count()) === 0) {
    // An empty catalog: take an imported show out of the library and add it back through search.
    test.info().annotations.push({ type: 'note', description: `catalog has no ${CATALOG_SHOW}; re-adding an import` });
    added = 'Example Garden Hour';
    await list.getByRole('button', { name: `Remove ${added}` }).click();
    await list
      .getByRole('group', { name: `Confirm removing ${added}` })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect(list.getByText(added, { exact: true })).toHaveCount(0);
    await search.fill('garden hour');
  }
  const addButton = results.getByRole('button', { name: `Add ${added}`, exact: true });
  await addButton.focus();
  await page.keyboard.press('Enter');
  await expect(results.getByRole('button', { name: `Added, ${added} is in your library` })).toBeDisabled();
  await expect(toasts(page).getByText('Podcast added')).toBeVisible();
  await expect(list.getByText(added, { exact: true })).toBeVisible();
  const addedRow = list.getByTestId('library-entry').filter({ hasText: added });
  await expect(addedRow.getByText('Added by you', { exact: true })).toBeVisible();
});
