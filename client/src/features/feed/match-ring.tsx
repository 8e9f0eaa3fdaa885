import { animate, motion, useMotionValue, useReducedMotion, useTransform } from 'framer-motion';
import { useEffect } from 'react';
import { ringTarget } from './feed-utils';

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
 * 300 ms after it appears or the % changes; the badge counts up with it.
 */
export function MatchRing({ matchPercentage, avatarUrl, name, color }: MatchRingProps) {
  const target = ringTarget(matchPercentage);
  const progress = useMotionValue(0);
  const reduceMotion = useReducedMotion();
  const percent = useTransform(progress, (p) => `${Math.round(p * 100)}%`);

  useEffect(() => {
    progress.set(0);
    if (reduceMotion) {
      progress.set(target);
      return;
    }
    const controls = animate(progress, target, {
      type: 'spring',
      delay: RING_ANIMATION.delayS,
      duration: RING_ANIMATION.durationS,
      bounce: RING_ANIMATION.bounce,
      stiffness: RING_ANIMATION.stiffness,
    });
    return () => controls.stop();
  }, [progress, target, reduceMotion]);

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
            style={{ pathLength: progress }}
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
        {percent}
      </motion.span>
      <span className="sr-only">{`${Math.round(target * 100)}% match`}</span>
    </div>
  );
}
