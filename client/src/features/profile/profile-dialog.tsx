import { type ReactNode, useEffect, useId, useRef } from 'react';

interface ProfileDialogProps {
  title: string;
  /** Shown under the title and named as the dialog's description. */
  description?: ReactNode;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
}

/**
 * A modal for the profile screen on the native <dialog>: showModal() gives the focus trap, the
 * inert page behind and Escape (its cancel event); a click on the backdrop closes it too, and focus
 * returns to the opener. Pointer events stop here so a drag inside never counts as the screen's swipe.
 */
export function ProfileDialog({ title, description, onClose, children, testId }: ProfileDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    }
    return () => {
      if (dialog.open && typeof dialog.close === 'function') dialog.close();
      opener?.focus?.();
    };
  }, []);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click is on the backdrop only; Escape (the cancel event) is its keyboard twin
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        close.current();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) close.current();
      }}
      onPointerDown={(event) => event.stopPropagation()}
      onPointerUp={(event) => event.stopPropagation()}
      onPointerMove={(event) => event.stopPropagation()}
      className="m-auto w-[calc(100%-2rem)] max-w-sm rounded-3xl border border-white/10 bg-zinc-900 p-0 text-zinc-100 shadow-2xl backdrop:bg-black/70"
    >
      <div className="p-5">
        <h2 id={titleId} className="text-lg font-semibold text-white">
          {title}
        </h2>
        {description ? (
          <div id={descriptionId} className="mt-2 text-sm text-zinc-300">
            {description}
          </div>
        ) : null}
        <div className="mt-4">{children}</div>
      </div>
    </dialog>
  );
}
