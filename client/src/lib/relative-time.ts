const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * SPEC section 5: under 60 s 'just now', under an hour 'Nm ago', under a day 'Nhr ago', under 7 days
 * 'Nd ago', else the locale date. Missing -> 'never', unparseable -> 'invalid date'. A time slightly
 * in the future (clock skew between devices) counts as 'just now'.
 */
export function relativeTime(
  value: string | number | Date | null | undefined,
  now: Date | number = Date.now(),
): string {
  if (value === null || value === undefined || value === '') return 'never';
  const date = value instanceof Date ? value : new Date(value);
  const time = date.getTime();
  if (Number.isNaN(time)) return 'invalid date';
  const seconds = Math.floor((Number(now) - time) / 1000);
  if (seconds < MINUTE) return 'just now';
  if (seconds < HOUR) return `${Math.floor(seconds / MINUTE)}m ago`;
  if (seconds < DAY) return `${Math.floor(seconds / HOUR)}hr ago`;
  if (seconds < 7 * DAY) return `${Math.floor(seconds / DAY)}d ago`;
  return date.toLocaleDateString();
}
