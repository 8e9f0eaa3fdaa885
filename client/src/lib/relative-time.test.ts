import { describe, expect, it } from 'vitest';
import { relativeDistance, relativeTime } from './relative-time';

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

describe('relativeDistance (SPEC section 5, the standard English distance scale)', () => {
  const MIN = 60;
  const HR = 3600;
  const DAY = 86_400;
  it.each([
    [0, 'less than a minute ago'],
    [29, 'less than a minute ago'],
    [60, '1 minute ago'],
    [5 * MIN, '5 minutes ago'],
    [45 * MIN, 'about 1 hour ago'],
    [2 * HR, 'about 2 hours ago'],
    [DAY, '1 day ago'],
    [3 * DAY, '3 days ago'],
    [30 * DAY, 'about 1 month ago'],
    [90 * DAY, '3 months ago'],
    [366 * DAY, 'about 1 year ago'],
    [(2 * 365 + 120) * DAY, 'over 2 years ago'],
    [(3 * 365 - 40) * DAY, 'almost 3 years ago'],
  ])('%i seconds ago is %s', (seconds, text) => {
    expect(relativeDistance(ago(seconds), NOW)).toBe(text);
  });

  it('a future time reads forward', () => {
    expect(relativeDistance(ago(-5 * MIN), NOW)).toBe('in 5 minutes');
  });

  it("a missing date is 'never', an invalid one 'invalid date'", () => {
    expect(relativeDistance(null, NOW)).toBe('never');
    expect(relativeDistance(undefined, NOW)).toBe('never');
    expect(relativeDistance('', NOW)).toBe('never');
    expect(relativeDistance('not a date', NOW)).toBe('invalid date');
    expect(relativeDistance(new Date(Number.NaN), NOW)).toBe('invalid date');
  });

  it('accepts timestamps and defaults to the current time', () => {
    expect(relativeDistance(NOW.getTime() - 120_000, NOW.getTime())).toBe('2 minutes ago');
    expect(relativeDistance(new Date())).toBe('less than a minute ago');
  });
});
