import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';

/** WCAG 2.2 levels A and AA, as axe tags them. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * Rules turned off: none. (Until issue 24 SPEC's non-zoomable viewport turned off `meta-viewport`; the
 * app is zoomable now, docs/accessibility.md.)
 */
export const DISABLED_RULES: string[] = [];

/** The smallest tap target we accept for controls, in CSS px (docs/accessibility.md). */
export const MIN_TAP_PX = 44;

export interface ScanOptions {
  /** CSS selectors left out of the check (each needs a TODO naming its fix). */
  exclude?: string[];
}

type AxeViolation = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'][number];

function listViolations(violations: AxeViolation[]): string[] {
  return violations.flatMap((violation) =>
    violation.nodes.map(
      (node) =>
        `- ${violation.id} (${violation.impact ?? 'n/a'}) at ${node.target.join(' ')}: ${
          node.failureSummary?.replace(/\s+/g, ' ').trim() ?? violation.help
        }`,
    ),
  );
}

function axe(page: Page, options: ScanOptions) {
  const builder = new AxeBuilder({ page });
  for (const selector of options.exclude ?? []) builder.exclude(selector);
  return builder;
}

/**
 * Runs axe on the page (WCAG 2.2 A + AA, every rule but `meta-viewport`) and fails softly with a
 * list of the violations (rule, target, summary), so one run reports every screen.
 *
 * The page's glow is a background image on <body>, under which axe cannot measure contrast (it
 * reports such text as "incomplete", not as passing or failing). A second pass therefore measures
 * `color-contrast` against the page's base colour with the glow switched off; the colours are chosen
 * to pass at the glow's brightest point too (docs/accessibility.md).
 */
export async function expectAccessible(page: Page, label: string, options: ScanOptions = {}): Promise<void> {
  const results = await axe(page, options).withTags(WCAG_TAGS).disableRules(DISABLED_RULES).analyze();
  const style = await page.addStyleTag({ content: 'body { background-image: none !important; }' });
  let contrast: AxeViolation[];
  try {
    contrast = (await axe(page, options).withRules(['color-contrast']).analyze()).violations;
  } finally {
    await style.evaluate((node) => (node as Element).remove());
  }
  const report = [
    ...listViolations(results.violations),
    ...listViolations(contrast).map((line) => `${line} (without the glow)`),
  ];
  expect.soft(report, `axe violations on ${label}:\n${report.join('\n')}`).toEqual([]);
}

/**
 * Every visible button, link and form control on the page is at least 44x44 CSS px. Links inside
 * running text (an inline link beside other text) are excepted, as WCAG 2.5.8 does.
 */
export async function expectTapTargets(scope: Page | Locator, label: string, options: ScanOptions = {}) {
  const small = await scope
    .locator(
      'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [role=tab], [role=link]',
    )
    .evaluateAll(
      (elements, { min, exclude }) => {
        const inlineLink = (el: Element) =>
          el.tagName === 'A' &&
          getComputedStyle(el).display === 'inline' &&
          (el.parentElement?.textContent ?? '').trim() !== (el.textContent ?? '').trim();
        const out: string[] = [];
        for (const el of elements) {
          const rect = el.getBoundingClientRect();
          if (rect.width === 0 || rect.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
          if (el.closest('[aria-hidden="true"], [inert]') || inlineLink(el)) continue;
          if (exclude.some((selector) => el.matches(selector))) continue;
          // A radio, checkbox or file input inside its label: the whole label is what a finger taps.
          const label = el.matches('input[type=radio], input[type=checkbox], input[type=file]') && el.closest('label');
          const box = label ? label.getBoundingClientRect() : rect;
          if (box.width + 0.5 < min || box.height + 0.5 < min) {
            const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? '';
            out.push(`${el.tagName.toLowerCase()} "${name}" ${Math.round(box.width)}x${Math.round(box.height)}`);
          }
        }
        return out;
      },
      { min: MIN_TAP_PX, exclude: options.exclude ?? [] },
    );
  expect
    .soft(small, `controls smaller than ${MIN_TAP_PX}x${MIN_TAP_PX} px on ${label}:\n${small.join('\n')}`)
    .toEqual([]);
}
