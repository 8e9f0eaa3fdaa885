import type { ComponentProps } from 'react';
import { cn } from '@/lib/cn';

export type ButtonVariant = 'primary' | 'spotify' | 'outline' | 'ghost' | 'destructive';
export type ButtonSize = 'md' | 'lg' | 'sm' | 'icon';

const variants: Record<ButtonVariant, string> = {
  primary: 'bg-intent text-white shadow-lg shadow-intent/25 hover:brightness-110',
  spotify: 'bg-spotify text-black shadow-lg shadow-spotify/20 hover:brightness-110',
  outline: 'border border-white/15 bg-white/[0.03] text-zinc-100 hover:bg-white/[0.08]',
  ghost: 'text-zinc-300 hover:bg-white/[0.06] hover:text-white',
  destructive: 'border border-red-500/40 bg-red-500/10 text-red-200 hover:bg-red-500/20',
};

const sizes: Record<ButtonSize, string> = {
  // Every size is at least 44 px high: the smallest comfortable tap target (docs/accessibility.md).
  sm: 'h-11 gap-1.5 rounded-full px-4 text-sm',
  md: 'h-11 gap-2 rounded-2xl px-5 text-sm',
  lg: 'h-13 gap-2.5 rounded-2xl px-6 text-base',
  icon: 'size-11 rounded-full',
};

export interface ButtonProps extends ComponentProps<'button'> {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

export function buttonClasses(variant: ButtonVariant = 'primary', size: ButtonSize = 'md', className?: string) {
  return cn(
    'inline-flex select-none items-center justify-center font-semibold transition duration-150',
    'active:scale-[0.98] disabled:pointer-events-none disabled:opacity-60',
    variants[variant],
    sizes[size],
    className,
  );
}

export function Button({ variant, size, className, type = 'button', ...props }: ButtonProps) {
  return <button type={type} className={buttonClasses(variant, size, className)} {...props} />;
}
