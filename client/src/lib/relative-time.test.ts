import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

describe('relativeTime (SPEC section 5)', () => {
  it.each([
    [0, 'just now'],
    [59, 'just now'],
    [60, '1m ago'],
    [59 * 60 + 59, '59m ago'],
    [3600, '1hr ago'],
    [23 * 3600 + 3599, '23hr ago'],
    [86_400, '1d ago'],
    [6 * 86_400 + 86_399, '6d ago'],
  ])('%i seconds ago is %s', (seconds, text) => {
    expect(relativeTime(ago(seconds), NOW)).toBe(text);
  });

  it('a week or more shows the locale date', () => {
    const then = ago(7 * 86_400);
    expect(relativeTime(then, NOW)).toBe(new Date(then).toLocaleDateString());
    expect(relativeTime(new Date('2020-01-05T10:00:00Z'), NOW)).toBe(
      new Date('2020-01-05T10:00:00Z').toLocaleDateString(),
    );
  });

  it("a missing date is 'never', an invalid one 'invalid date'", () => {
    expect(relativeTime(null, NOW)).toBe('never');
    expect(relativeTime(undefined, NOW)).toBe('never');
    expect(relativeTime('', NOW)).toBe('never');
    expect(relativeTime('not a date', NOW)).toBe('invalid date');
    expect(relativeTime(new Date(Number.NaN), NOW)).toBe('invalid date');
  });

  it("a time a little in the future (another device's clock) is 'just now'", () => {
    expect(relativeTime(ago(-30), NOW)).toBe('just now');
  });

  it('accepts timestamps and defaults to the current time', () => {
    expect(relativeTime(NOW.getTime() - 120_000, NOW.getTime())).toBe('2m ago');
    expect(relativeTime(new Date())).toBe('just now');
  });
});
