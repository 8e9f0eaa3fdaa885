import * as ToastPrimitive from '@radix-ui/react-toast';
import { TOAST } from '@shared/constants';
import { X } from 'lucide-react';
import { cn } from '@/lib/cn';
import { dismissToast, useToast } from '@/lib/toast';

/**
 * Renders the toast queue with Radix (SPEC: one at a time, 5 s, swipe right past 50 px to dismiss,
 * F8 focuses the region, at most 420 px wide from md up).
 */
export function Toaster() {
  const { toasts } = useToast();
  return (
    <ToastPrimitive.Provider swipeDirection="right" swipeThreshold={TOAST.swipeThresholdPx} duration={TOAST.durationMs}>
      {toasts.map((item) => (
        <ToastPrimitive.Root
          key={item.id}
          open={item.open}
          onOpenChange={(open) => {
            if (!open) dismissToast(item.id);
          }}
          duration={item.duration}
          type={item.variant === 'destructive' ? 'foreground' : 'background'}
          data-variant={item.variant ?? 'default'}
          className={cn(
            'toast group pointer-events-auto relative flex w-full items-start gap-3 overflow-hidden rounded-2xl border p-4 pr-12 shadow-2xl backdrop-blur-xl',
            item.variant === 'destructive'
              ? 'border-red-500/40 bg-red-950/90 text-red-50'
              : 'border-white/10 bg-ink-raised/95 text-zinc-100',
          )}
        >
          <div className="grid gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{item.title}</ToastPrimitive.Title>
            {item.description ? (
              <ToastPrimitive.Description className="text-sm opacity-85">{item.description}</ToastPrimitive.Description>
            ) : null}
          </div>
          <ToastPrimitive.Close
            aria-label="Close"
            className="absolute right-1 top-1 grid size-11 place-items-center rounded-full opacity-70 transition hover:bg-white/10 hover:opacity-100"
          >
            <X aria-hidden="true" className="size-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport
        hotkey={[TOAST.hotkey]}
        className="fixed top-0 right-0 z-[100] flex max-h-dvh w-full flex-col gap-2 p-4 outline-none md:top-auto md:bottom-0 md:max-w-[420px]"
      />
    </ToastPrimitive.Provider>
  );
}
