import { type PointerEvent, type MouseEvent as ReactMouseEvent, useRef, useState } from 'react';

/** SPEC: a swipe right of more than this many pixels leaves /matches for '/'. */
export const SWIPE_THRESHOLD_PX = 100;

/**
 * Pointer-event swipe detection (mouse, pen and touch). The area follows the finger to the right
 * a little; releasing past the threshold calls `onSwipe`, and the click that ends a swipe is
 * swallowed so a card under the pointer does not open.
 */
export function useSwipeRight(onSwipe: () => void) {
  const start = useRef<{ x: number; y: number; id: number } | null>(null);
  const swallowClick = useRef(false);
  const [offset, setOffset] = useState(0);

  const reset = () => {
    start.current = null;
    setOffset(0);
  };

  return {
    offset,
    handlers: {
      onPointerDown: (event: PointerEvent<HTMLElement>) => {
        if (event.pointerType === 'mouse' && event.button !== 0) return;
        start.current = { x: event.clientX, y: event.clientY, id: event.pointerId };
        swallowClick.current = false;
      },
      onPointerMove: (event: PointerEvent<HTMLElement>) => {
        const from = start.current;
        if (!from || from.id !== event.pointerId) return;
        const dx = event.clientX - from.x;
        const dy = Math.abs(event.clientY - from.y);
        // Once it is clearly a drag, keep this pointer's events even if it leaves the area. (Not on
        // pointerdown: capturing there would retarget plain clicks away from the buttons.)
        if (Math.abs(dx) > 10 && !event.currentTarget.hasPointerCapture?.(event.pointerId)) {
          event.currentTarget.setPointerCapture?.(event.pointerId);
        }
        setOffset(dx > 0 && dx > dy ? Math.min(dx, SWIPE_THRESHOLD_PX * 1.5) / 3 : 0);
      },
      onPointerUp: (event: PointerEvent<HTMLElement>) => {
        const from = start.current;
        reset();
        if (!from || from.id !== event.pointerId) return;
        const dx = event.clientX - from.x;
        const dy = Math.abs(event.clientY - from.y);
        if (dx > SWIPE_THRESHOLD_PX && dx > dy) {
          swallowClick.current = true;
          onSwipe();
        } else if (Math.abs(dx) > 10 || dy > 10) {
          swallowClick.current = true;
        }
      },
      onPointerCancel: reset,
      // A native drag of selected text would cancel the pointer mid-swipe.
      onDragStart: (event: ReactMouseEvent<HTMLElement>) => event.preventDefault(),
      onClickCapture: (event: ReactMouseEvent<HTMLElement>) => {
        if (swallowClick.current) {
          swallowClick.current = false;
          event.preventDefault();
          event.stopPropagation();
        }
      },
    },
  };
}
