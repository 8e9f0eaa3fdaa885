import type { PointerEvent, DragEvent as ReactDragEvent } from 'react';
import { useRef } from 'react';

/** SPEC section 2 (own profile): a swipe left of more than this many pixels goes to '/'. */
export const PROFILE_SWIPE_PX = 100;

/** Drags that start in a text field select text; they are never swipes. */
const IGNORED_TARGETS = 'input, textarea, select, [contenteditable="true"]';

/**
 * Detects a leftward swipe on an area (mouse, pen or touch pointer events). Pair it with
 * `touch-action: pan-y` on the area, so the browser keeps vertical scrolling but leaves horizontal
 * drags to the page. A drag counts when it ends more than `PROFILE_SWIPE_PX` left of where it began
 * and moved more sideways than up or down.
 */
export function useSwipeLeft(onSwipe: () => void) {
  const origin = useRef<{ pointerId: number; x: number; y: number } | null>(null);
  return {
    onPointerDown(event: PointerEvent<HTMLElement>) {
      const primary = event.pointerType !== 'mouse' || event.button === 0;
      const inField = event.target instanceof Element && event.target.closest(IGNORED_TARGETS) !== null;
      origin.current = primary && !inField ? { pointerId: event.pointerId, x: event.clientX, y: event.clientY } : null;
    },
    onPointerUp(event: PointerEvent<HTMLElement>) {
      const began = origin.current;
      origin.current = null;
      if (began?.pointerId !== event.pointerId) return;
      const leftward = began.x - event.clientX;
      if (leftward > PROFILE_SWIPE_PX && leftward > Math.abs(event.clientY - began.y)) onSwipe();
    },
    onPointerCancel() {
      origin.current = null;
    },
    // A native drag (of the avatar image or selected text) would cancel the pointer mid-swipe.
    onDragStart(event: ReactDragEvent<HTMLElement>) {
      event.preventDefault();
    },
  };
}
