import { cn } from '@/lib/cn';

/** A labelled progress bar (0-100) in the intent's colour: role=progressbar with aria-valuenow. */
export function ProgressBar({ value, label, className }: { value: number; label: string; className?: string }) {
  const percent = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      className={cn('h-2 w-full overflow-hidden rounded-full bg-white/10', className)}
    >
      <div className="h-full rounded-full bg-intent transition-[width]" style={{ width: `${percent}%` }} />
    </div>
  );
}
