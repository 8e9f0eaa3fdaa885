import { formatDistance } from 'date-fns';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type TimeValue = string | number | Date | null | undefined;

/** The date for a value, or the text shown instead: 'never' when missing, 'invalid date' when unparseable. */
function parseTime(value: TimeValue): Date | 'never' | 'invalid date' {
  if (value === null || value === undefined || value === '') return 'never';
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? 'invalid date' : date;
}

/**
 * SPEC section 5: under 60 s 'just now', under an hour 'Nm ago', under a day 'Nhr ago', under 7 days
 * 'Nd ago', else the locale date. Missing -> 'never', unparseable -> 'invalid date'. A time slightly
 * in the future (clock skew between devices) counts as 'just now'.
 */
export function relativeTime(value: TimeValue, now: Date | number = Date.now()): string {
  const date = parseTime(value);
  if (typeof date === 'string') return date;
  const time = date.getTime();
  const seconds = Math.floor((Number(now) - time) / 1000);
  if (seconds < MINUTE) return 'just now';
  if (seconds < HOUR) return `${Math.floor(seconds / MINUTE)}m ago`;
  if (seconds < DAY) return `${Math.floor(seconds / HOUR)}hr ago`;
  if (seconds < 7 * DAY) return `${Math.floor(seconds / DAY)}d ago`;
  return date.toLocaleDateString();
}

/**
 * SPEC section 5's second formatter: the standard English distance scale ('less than a minute ago',
 * 'about 2 hours ago', '3 days ago', 'about 1 year ago', 'over 2 years ago', 'in 5 minutes'), from
 * date-fns. Missing and invalid values read as in relativeTime.
 */
export function relativeDistance(value: TimeValue, now: Date | number = Date.now()): string {
  const date = parseTime(value);
  if (typeof date === 'string') return date;
  return formatDistance(date, now, { addSuffix: true });
}
