import type { Standing } from '@shared/schemas/moderation';
import type { ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { standingBadges } from './moderation-labels';

const tones = {
  zinc: 'bg-white/[0.08] text-zinc-200',
  red: 'bg-red-500/15 text-red-200',
  amber: 'bg-amber-400/15 text-amber-100',
  sky: 'bg-sky-400/15 text-sky-100',
} as const;

export function Badge({ children, tone = 'zinc' }: { children: ReactNode; tone?: keyof typeof tones }) {
  return (
    <span className={cn('inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium', tones[tone])}>
      {children}
    </span>
  );
}

/** Hidden, suspended, banned, auto-hidden: what is in force against the person. */
export function StandingBadges({ standing }: { standing: Standing }) {
  return standingBadges(standing).map((label) => (
    <Badge key={label} tone={label === 'Banned' || label === 'Suspended' ? 'red' : 'amber'}>
      {label}
    </Badge>
  ));
}
