import type { ComponentProps } from 'react';
import { cn } from '@/lib/cn';

export function Input({ className, ...props }: ComponentProps<'input'>) {
  return (
    <input
      className={cn(
        'h-11 w-full rounded-2xl border border-white/10 bg-white/[0.04] px-4 text-sm text-zinc-100',
        'placeholder:text-zinc-500 transition focus:border-intent-soft/70 focus:bg-white/[0.06] focus:outline-none',
        'aria-invalid:border-red-500/70',
        className,
      )}
      {...props}
    />
  );
}
