import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MatchRing } from './match-ring';

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
