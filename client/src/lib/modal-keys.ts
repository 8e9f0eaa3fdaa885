import type { KeyboardEvent } from 'react';

const FOCUSABLE = 'button:not([disabled]), textarea:not([disabled]), input:not([disabled]), select:not([disabled])';

/**
 * The keys of a modal of our own (no dialog library in the dependencies): Escape closes it, Tab and
 * Shift+Tab go round its controls without leaving it. For the modal's onKeyDown.
 */
export function handleModalKeys(event: KeyboardEvent<HTMLElement>, panel: HTMLElement | null, onClose: () => void) {
  if (event.key === 'Escape') {
    event.stopPropagation();
    onClose();
    return;
  }
  if (event.key !== 'Tab' || !panel) return;
  const items = [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = items[0];
  const last = items.at(-1);
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last?.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first?.focus();
  }
}

/** The first control of a modal's panel, to focus when it opens or changes step. */
export const firstControlOf = (panel: HTMLElement | null) => panel?.querySelector<HTMLElement>(FOCUSABLE) ?? null;
