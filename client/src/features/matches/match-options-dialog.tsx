import { REPORT_REASONS, type ReportReason } from '@shared/schemas/matches';
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { Button } from '@/components/ui/button';
import { firstControlOf, handleModalKeys } from '@/lib/modal-keys';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';

export const REPORT_DETAILS_MAX = 1000;

type Step = 'menu' | 'unmatch' | 'block' | 'report';

interface MatchOptionsDialogProps {
  name: string;
  busy: boolean;
  /** Open on this step (the chat's "Does this bother you? Report" opens the report); default the menu. */
  initialStep?: Step;
  /** The report's reason chosen beforehand (still changeable). */
  initialReason?: ReportReason;
  onClose: () => void;
  onUnmatch: () => void;
  onBlock: () => void;
  onReport: (reason: ReportReason, details: string) => void;
}

/**
 * The more-options dialog of a match card: Unmatch, Block and Report, each confirmed on a second
 * step. A small modal of our own (no Radix dialog in the dependencies): labelled, Escape and the
 * backdrop close it, Tab stays inside, and focus returns to the opener when it closes.
 */
export function MatchOptionsDialog({
  name,
  busy,
  initialStep = 'menu',
  initialReason,
  onClose,
  onUnmatch,
  onBlock,
  onReport,
}: MatchOptionsDialogProps) {
  const [step, setStep] = useState<Step>(initialStep);
  const [reason, setReason] = useState<ReportReason | null>(initialReason ?? null);
  const [details, setDetails] = useState('');
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const textId = useId();

  // Focus the first control of every step; give focus back to whoever opened the dialog.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    return () => opener?.focus?.();
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs again on every new step on purpose
  useEffect(() => {
    firstControlOf(panel.current)?.focus();
  }, [step]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => handleModalKeys(event, panel.current, onClose);

  let title: string;
  let body: ReactNode;
  if (step === 'menu') {
    title = `Options for ${name}`;
    body = (
      <div className="grid gap-2">
        <Button variant="outline" onClick={() => setStep('unmatch')}>
          Unmatch
        </Button>
        <Button variant="destructive" onClick={() => setStep('block')}>
          Block
        </Button>
        <Button variant="destructive" onClick={() => setStep('report')}>
          Report
        </Button>
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
      </div>
    );
  } else if (step === 'unmatch') {
    title = `Unmatch ${name}?`;
    body = (
      <>
        <p id={textId} className="text-sm text-zinc-400">
          The match and your conversation with {name} will be removed for both of you.
        </p>
        <div className="mt-5 flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={onUnmatch} disabled={busy}>
            Confirm unmatch
          </Button>
        </div>
      </>
    );
  } else if (step === 'block') {
    title = `Block ${name}?`;
    body = (
      <>
        <p id={textId} className="text-sm text-zinc-400">
          Blocking hides you both from each other everywhere: the feed, matches and chat. Your match with {name} is
          removed.
        </p>
        <div className="mt-5 flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={onBlock} disabled={busy}>
            Confirm block
          </Button>
        </div>
      </>
    );
  } else {
    title = `Report ${name}`;
    body = (
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (reason) onReport(reason, details.trim());
        }}
      >
        <fieldset className="grid gap-2">
          <legend id={textId} className="mb-2 text-sm text-zinc-400">
            Why are you reporting {name}?
          </legend>
          {REPORT_REASONS.map((value) => (
            <label
              key={value}
              className="flex min-h-11 items-center gap-3 rounded-xl border border-white/10 px-3 py-2 text-sm"
            >
              <input
                type="radio"
                name="report-reason"
                value={value}
                checked={reason === value}
                onChange={() => setReason(value)}
              />
              {REPORT_REASON_LABELS[value]}
            </label>
          ))}
        </fieldset>
        <label className="mt-4 grid gap-1 text-sm text-zinc-300">
          Details (optional)
          <textarea
            value={details}
            maxLength={REPORT_DETAILS_MAX}
            onChange={(event) => setDetails(event.target.value)}
            rows={3}
            className="rounded-xl border border-white/10 bg-white/[0.04] p-2 text-zinc-100"
          />
        </label>
        <p className="mt-1 text-right text-xs text-zinc-500">
          {details.length}/{REPORT_DETAILS_MAX}
        </p>
        <div className="mt-4 flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="destructive" disabled={busy || reason === null}>
            Send report
          </Button>
        </div>
      </form>
    );
  }

  return createPortal(
    <div className="fixed inset-0 z-50 grid place-items-center bg-black/60 p-4">
      <button
        type="button"
        aria-label="Close"
        tabIndex={-1}
        className="absolute inset-0 cursor-default"
        onClick={onClose}
      />
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={step === 'menu' ? undefined : textId}
        onKeyDown={onKeyDown}
        className="relative w-full max-w-sm rounded-3xl border border-white/10 bg-zinc-900 p-5 shadow-2xl"
      >
        <h2 id={titleId} className="mb-4 text-lg font-semibold text-white">
          {title}
        </h2>
        {body}
      </div>
    </div>,
    document.body,
  );
}
