import { useEffect, useRef } from 'react';

/** The queue's keyboard shortcuts, as the help lists them. */
export const SHORTCUTS = [
  { keys: ['j', 'k'], does: 'Next / previous person' },
  { keys: ['Enter'], does: 'Open the highlighted person' },
  { keys: ['c'], does: 'Claim the open person' },
  { keys: ['w', 'h', 's', 'b', 'd'], does: 'Choose warn, hide, suspend, ban or dismiss, then write the explanation' },
  { keys: ['Esc'], does: 'Close the person' },
  { keys: ['?'], does: 'Show or hide these shortcuts' },
] as const;

/** What each key does. */
const ACTIONS = {
  j: 'next',
  k: 'previous',
  Enter: 'open',
  c: 'claim',
  w: 'warn',
  h: 'hide',
  s: 'suspend',
  b: 'ban',
  d: 'dismiss',
  Escape: 'close',
  '?': 'help',
} as const;

export type ShortcutAction = (typeof ACTIONS)[keyof typeof ACTIONS];

/** Inputs that take no typing: a shortcut still works while one of them has the focus (an action chosen by click). */
const NOT_TYPED = new Set(['radio', 'checkbox', 'button', 'submit', 'reset', 'range', 'color', 'file']);

/** Where a key press is text or belongs to a control of its own: a shortcut must not take it. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  return target instanceof HTMLInputElement && !NOT_TYPED.has(target.type);
}

/**
 * Keyboard shortcuts while the queue is shown. Never while typing, with a modifier (the browser's
 * own shortcuts), or inside a dialog (a statement of reasons may be open over the screen). Enter
 * only where it would do nothing else: on a button or link it presses that.
 */
export function useQueueShortcuts(handlers: Partial<Record<ShortcutAction, () => void>>): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (!Object.hasOwn(ACTIONS, event.key)) return;
      const target = event.target;
      if (isTyping(target)) return;
      if (target instanceof HTMLElement && target.closest('[role="dialog"]')) return;
      if (
        event.key === 'Enter' &&
        target instanceof HTMLElement &&
        target.closest('button, a, summary, [role="tab"]')
      ) {
        return;
      }
      const handler = latest.current[ACTIONS[event.key as keyof typeof ACTIONS]];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}
