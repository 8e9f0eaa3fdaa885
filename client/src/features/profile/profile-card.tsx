import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from '@/lib/cn';

interface ProfileCardProps {
  icon: LucideIcon;
  title: string;
  /** Something beside the title (a percentage, a badge). */
  aside?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}

/** One card of the own-profile screen: an icon, a heading and its content. */
export function ProfileCard({ icon: Icon, title, aside, children, className, testId }: ProfileCardProps) {
  return (
    <section
      data-testid={testId}
      aria-label={title}
      className={cn(
        'min-w-0 rounded-3xl border border-white/10 bg-white/[0.03] p-5 shadow-xl shadow-black/20',
        className,
      )}
    >
      <div className="mb-4 flex items-center gap-3">
        <span className="grid size-9 shrink-0 place-items-center rounded-xl bg-intent/15 text-intent-soft">
          <Icon aria-hidden="true" className="size-5" />
        </span>
        <h2 className="min-w-0 flex-1 text-base font-semibold text-white">{title}</h2>
        {aside}
      </div>
      {children}
    </section>
  );
}
