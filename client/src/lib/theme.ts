import { INTENT_INFO, INTENTS, type Intent } from '@shared/constants';

/**
 * Publishes the intent colours from the shared constants as CSS variables (--intent-romantic, ...);
 * the stylesheet maps `--intent` to one of them through the root's data-intent attribute.
 */
export function applyIntentPalette(root: HTMLElement = document.documentElement): void {
  for (const intent of INTENTS) {
    root.style.setProperty(`--intent-${intent}`, INTENT_INFO[intent].color);
    root.style.setProperty(`--intent-${intent}-soft`, INTENT_INFO[intent].videoColors[1]);
  }
}

/**
 * The intent's colour for text on the dark page and cards: the lighter shade of the same hue
 * (at least 4.9:1 on the page, its glow included, and on cards). The base colour is for fills under
 * white text (at least 4.7:1); as text it measures only 2.3-3.7:1. Tailwind: `text-intent-soft`.
 */
export function intentTextColor(intent: Intent): string {
  return INTENT_INFO[intent].videoColors[1];
}

export function applyCurrentIntent(intent: Intent, root: HTMLElement = document.documentElement): void {
  root.dataset.intent = intent;
}
