// How a feed card leaves (like: up and to the right; pass: to the left) and how the next one arrives
// (it slides up into place). Nothing moves when the person prefers reduced motion. Motion values
// (animated by framer-motion's frame loop), so the card's own drag offsets stay its own.
import { animate, type MotionValue, useMotionValue, useReducedMotion } from 'framer-motion';
import { useCallback, useMemo } from 'react';

const EXIT = { duration: 0.28, ease: 'easeIn' } as const;
const ENTER = { duration: 0.3, ease: 'easeOut' } as const;

export interface CardMotion {
  /** For the wrapper's `style`. */
  style: { x: MotionValue<number>; y: MotionValue<number>; rotate: MotionValue<number>; opacity: MotionValue<number> };
  /** Animates the card away; resolves when it is gone (at once with reduced motion). */
  exit(liked: boolean): Promise<void>;
  /** A new card slides in from a little below. */
  enter(): Promise<void>;
  /** A card that had started to leave comes back (the action was refused). */
  back(): Promise<void>;
}

export function useCardMotion(): CardMotion {
  const reduceMotion = useReducedMotion() ?? false;
  const x = useMotionValue(0);
  const y = useMotionValue(0);
  const rotate = useMotionValue(0);
  const opacity = useMotionValue(1);

  const to = useCallback(
    async (target: { x: number; y: number; rotate: number; opacity: number }, options: typeof EXIT | typeof ENTER) => {
      const values = { x, y, rotate, opacity };
      if (reduceMotion) {
        for (const [key, value] of Object.entries(target)) values[key as keyof typeof values].set(value);
        return;
      }
      // Never waits longer than the animation should take (a stalled frame loop must not hold the feed).
      await Promise.race([
        Promise.all(
          Object.entries(target).map(([key, value]) => animate(values[key as keyof typeof values], value, options)),
        ),
        new Promise((resolve) => setTimeout(resolve, options.duration * 1000 + 100)),
      ]);
    },
    [x, y, rotate, opacity, reduceMotion],
  );

  const exit = useCallback(
    (liked: boolean) =>
      to(liked ? { x: 360, y: -60, rotate: 14, opacity: 0 } : { x: -360, y: 0, rotate: -14, opacity: 0 }, EXIT),
    [to],
  );
  const enter = useCallback(() => {
    x.set(0);
    rotate.set(0);
    if (!reduceMotion) {
      y.set(48);
      opacity.set(0);
    }
    return to({ x: 0, y: 0, rotate: 0, opacity: 1 }, ENTER);
  }, [to, x, y, rotate, opacity, reduceMotion]);
  const back = useCallback(() => to({ x: 0, y: 0, rotate: 0, opacity: 1 }, ENTER), [to]);

  return useMemo(
    () => ({ style: { x, y, rotate, opacity }, exit, enter, back }),
    [x, y, rotate, opacity, exit, enter, back],
  );
}
