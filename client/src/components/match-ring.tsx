import { animate, motion, useMotionValue, useReducedMotion } from 'framer-motion';
import { useEffect } from 'react';

/** The ring's target: the match percentage clamped to 0..100 as a fraction of the circle. */
export function ringTarget(matchPercentage: number): number {
  if (!Number.isFinite(matchPercentage)) return 0;
  return Math.min(100, Math.max(0, matchPercentage)) / 100;
}

/**
 * The badge's next number while the ring animates towards `targetPercent` (0..100): the animated
 * progress (a fraction, possibly below 0 or above the target while a spring overshoots) rounded to
 * a percent, never below what is already shown, never below 0, never above the target.
 */
export function nextBadgeCount(shown: number, progress: number, targetPercent: number): number {
  const value = Number.isFinite(progress) ? Math.round(progress * 100) : 0;
  return Math.max(0, Math.min(targetPercent, Math.max(shown, value)));
}

/** SPEC section 4, "Ring animation". */
export const RING_ANIMATION = { delayS: 0.3, durationS: 2.8, bounce: 0.15, stiffness: 60 } as const;

const SIZE = 60;
const STROKE = 4;
const RADIUS = (SIZE - STROKE) / 2;

interface MatchRingProps {
  matchPercentage: number;
  avatarUrl: string;
  name: string;
  color: string;
}

/**
 * A 52 px avatar inside a 60 px progress ring. Progress restarts from 0 and springs to the match %
 * 300 ms after it appears or the % changes; the badge counts up with it. What is drawn only ever
 * counts up from 0 to the target (`nextBadgeCount`): the spring's overshoot and any velocity left
 * over from the previous card never show as a number below 0 or above the match %.
 */
export function MatchRing({ matchPercentage, avatarUrl, name, color }: MatchRingProps) {
  const target = ringTarget(matchPercentage);
  const targetPercent = Math.round(target * 100);
  const progress = useMotionValue(0);
  const ring = useMotionValue(0);
  const badge = useMotionValue('0%');
  const reduceMotion = useReducedMotion();

  useEffect(() => {
    let shown = 0;
    ring.jump(0);
    badge.jump('0%');
    // jump(), not set(): set() would give the value a velocity (from the previous target down to
    // 0) that the spring below inherits and overshoots below zero with.
    progress.jump(0);
    const unsubscribe = progress.on('change', (value) => {
      shown = nextBadgeCount(shown, value, targetPercent);
      ring.set(shown / 100);
      badge.set(`${shown}%`);
    });
    if (reduceMotion) {
      progress.set(target);
      return unsubscribe;
    }
    const controls = animate(progress, target, {
      type: 'spring',
      velocity: 0,
      delay: RING_ANIMATION.delayS,
      duration: RING_ANIMATION.durationS,
      bounce: RING_ANIMATION.bounce,
      stiffness: RING_ANIMATION.stiffness,
    });
    return () => {
      controls.stop();
      unsubscribe();
    };
  }, [progress, ring, badge, target, targetPercent, reduceMotion]);

  return (
    <div className="relative flex flex-col items-center gap-1" data-testid="match-ring" data-target={target}>
      <div className="relative size-[60px]">
        <svg width={SIZE} height={SIZE} viewBox={`0 0 ${SIZE} ${SIZE}`} className="-rotate-90" aria-hidden="true">
          <circle
            cx={SIZE / 2}
            cy={SIZE / 2}
            r={RADIUS}
            fill="none"
            stroke="rgba(255,255,255,0.15)"
            strokeWidth={STROKE}
          />
          <motion.circle
            cx={SIZE / 2}
            cy={SIZE / 2}
            r={RADIUS}
            fill="none"
            stroke={color}
            strokeWidth={STROKE}
            strokeLinecap="round"
            style={{ pathLength: ring }}
          />
        </svg>
        <img
          src={avatarUrl}
          alt={name}
          className="absolute left-1 top-1 size-[52px] rounded-full object-cover"
          draggable={false}
        />
      </div>
      <motion.span
        className="rounded-full px-2 py-0.5 text-xs font-bold text-white"
        style={{ backgroundColor: color }}
        aria-hidden="true"
        data-testid="match-badge"
      >
        {badge}
      </motion.span>
      <span className="sr-only">{`${Math.round(target * 100)}% match`}</span>
    </div>
  );
}
