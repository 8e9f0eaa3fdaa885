import { act, render, screen } from '@testing-library/react';
import { spring } from 'framer-motion';
import { describe, expect, it } from 'vitest';
import { MatchRing, nextBadgeCount, RING_ANIMATION, ringTarget } from './match-ring';

const wait = (ms: number) => act(() => new Promise<void>((resolve) => setTimeout(resolve, ms)));

/** Every text the badge shows from now on, as numbers (NaN for anything that is not "N%"). */
function recordBadge(): { values: number[]; stop: () => void } {
  const badge = screen.getByTestId('match-badge');
  const values: number[] = [];
  const read = () => {
    const match = /^(-?\d+)%$/.exec(badge.textContent ?? '');
    values.push(match ? Number(match[1]) : Number.NaN);
  };
  read();
  const observer = new MutationObserver(read);
  observer.observe(badge, { childList: true, characterData: true, subtree: true });
  return { values, stop: () => observer.disconnect() };
}

describe('MatchRing', () => {
  it('counts the badge up from 0 to the target, again from 0 when the target changes mid-animation', async () => {
    const props = { avatarUrl: '/a.svg', name: 'Ada', color: '#f0f' };
    const { rerender } = render(<MatchRing matchPercentage={80} {...props} />);
    const first = recordBadge();
    await wait(900);
    first.stop();
    expect(first.values[0]).toBe(0);
    expect(first.values.length).toBeGreaterThan(3);
    for (const [i, value] of first.values.entries()) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(80);
      if (i > 0) expect(value).toBeGreaterThanOrEqual(first.values[i - 1] ?? 0);
    }
    expect(first.values.at(-1)).toBeGreaterThan(0);

    // The next card's % while the ring still moves: the spring must not inherit the drop to 0.
    const second = recordBadge();
    rerender(<MatchRing matchPercentage={45} {...props} />);
    await wait(1500);
    second.stop();
    const afterReset = second.values.slice(second.values.indexOf(0));
    expect(afterReset[0]).toBe(0);
    for (const [i, value] of afterReset.entries()) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(45);
      if (i > 0) expect(value).toBeGreaterThanOrEqual(afterReset[i - 1] ?? 0);
    }
    expect(afterReset.at(-1)).toBeGreaterThan(20);
    expect(screen.getByTestId('match-ring').getAttribute('data-target')).toBe('0.45');
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
