import { spring } from 'framer-motion';
import { describe, expect, it } from 'vitest';
import { decideDrag, dragHint, nextBadgeCount, ringTarget } from './feed-utils';
import { RING_ANIMATION } from './match-ring';

describe('decideDrag', () => {
  it('vertical drags past 80 px go to the next (up) or previous (down) card', () => {
    expect(decideDrag({ x: 0, y: -81 })).toBe('next');
    expect(decideDrag({ x: 10, y: 81 })).toBe('previous');
    expect(decideDrag({ x: 0, y: -80 })).toBe('none');
    expect(decideDrag({ x: 0, y: 80 })).toBe('none');
  });

  it('horizontal drags past 150 px go to /profile (right) or /matches (left)', () => {
    expect(decideDrag({ x: 151, y: 0 })).toBe('profile');
    expect(decideDrag({ x: -151, y: 20 })).toBe('matches');
    expect(decideDrag({ x: 150, y: 0 })).toBe('none');
    expect(decideDrag({ x: -120, y: 10 })).toBe('none');
  });

  it('the dominant axis decides', () => {
    expect(decideDrag({ x: 200, y: -210 })).toBe('next');
    expect(decideDrag({ x: -200, y: 100 })).toBe('matches');
  });
});

describe('dragHint', () => {
  it('shows a hint once the drag passes 20 px', () => {
    expect(dragHint(20)).toBeNull();
    expect(dragHint(21)).toBe('profile');
    expect(dragHint(-21)).toBe('matches');
  });
});

describe('ringTarget', () => {
  it('is the match percentage as a fraction, clamped', () => {
    expect(ringTarget(72)).toBe(0.72);
    expect(ringTarget(0)).toBe(0);
    expect(ringTarget(140)).toBe(1);
    expect(ringTarget(-5)).toBe(0);
    expect(ringTarget(Number.NaN)).toBe(0);
  });
});

describe('nextBadgeCount (the ring badge count-up)', () => {
  /** The badge numbers shown while `trajectory` (ring progress fractions) plays towards `targetPercent`. */
  function shownSequence(trajectory: number[], targetPercent: number): number[] {
    let shown = 0;
    return trajectory.map((progress) => {
      shown = nextBadgeCount(shown, progress, targetPercent);
      return shown;
    });
  }

  /** The ring's spring from 0 to `target`, sampled every 16 ms, starting with `velocity`. */
  function springTrajectory(target: number, velocity: number): number[] {
    const generator = spring({
      keyframes: [0, target],
      velocity,
      duration: RING_ANIMATION.durationS * 1000,
      bounce: RING_ANIMATION.bounce,
      stiffness: RING_ANIMATION.stiffness,
    });
    const values: number[] = [];
    for (let t = 0; t <= 4000; t += 16) values.push(generator.next(t).value as number);
    return values;
  }

  it('counts up from 0 to the target only, even from a strong negative start velocity (the -54 % bug)', () => {
    for (const velocity of [0, -5, -20, 10]) {
      const trajectory = springTrajectory(0.67, velocity);
      if (velocity <= -5) expect(Math.min(...trajectory)).toBeLessThan(0);
      const shown = shownSequence(trajectory, 67);
      expect(shown[0]).toBe(0);
      expect(shown.at(-1)).toBe(67);
      for (const [i, value] of shown.entries()) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(67);
        if (i > 0) expect(value).toBeGreaterThanOrEqual(shown[i - 1] ?? 0);
      }
    }
  });

  it('never shows the overshoot of the spring above the target', () => {
    const trajectory = springTrajectory(0.95, 30);
    expect(Math.max(...trajectory)).toBeGreaterThan(0.95);
    expect(Math.max(...shownSequence(trajectory, 95))).toBe(95);
  });

  it('clamps odd inputs', () => {
    expect(nextBadgeCount(0, Number.NaN, 50)).toBe(0);
    expect(nextBadgeCount(0, -0.4, 50)).toBe(0);
    expect(nextBadgeCount(10, 0.05, 50)).toBe(10);
    expect(nextBadgeCount(0, 3, 50)).toBe(50);
    expect(nextBadgeCount(0, 0.5, 0)).toBe(0);
  });
});
