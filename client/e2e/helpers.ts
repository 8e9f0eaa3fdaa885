import { expect, type Page } from '@playwright/test';

/** A username nobody used before (dev login creates the user; displayName = username as typed). */
export function freshUsername(prefix = 'e2e'): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The Radix toast region (role region, "Notifications (F8)"). */
export function toasts(page: Page) {
  return page.getByRole('region', { name: /Notifications/ });
}

/** Logs in through the development form and waits for the feed. */
export async function devLogin(page: Page, username = freshUsername()): Promise<string> {
  await page.goto('/login');
  await page.getByLabel('Or choose any username').fill(username);
  await page.getByRole('button', { name: 'Login as Developer' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByTestId('user-display-name')).toHaveText(username);
  return username;
}
