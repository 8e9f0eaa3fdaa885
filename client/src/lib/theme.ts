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

export function applyCurrentIntent(intent: Intent, root: HTMLElement = document.documentElement): void {
  root.dataset.intent = intent;
}
