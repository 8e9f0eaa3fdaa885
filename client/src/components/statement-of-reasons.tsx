import type { Notice } from '@shared/schemas/moderation';
import { type FormEvent, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/http';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';

// The statement of reasons a person receives about a moderator's decision (docs/moderation.md):
// what happened, why, which rule, for how long and how to appeal. Shown in the app's notice dialog
// and on the login screen of a suspended person. Type imports only from the contract: the login
// screen draws this on its first load, without zod.

/** A date and time in the reader's locale, e.g. "December 4, 2026 at 10:00 AM". */
export function formatDateTime(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(undefined, { dateStyle: 'long', timeStyle: 'short' });
}

/** The appeal outcome of an appealOutcome notice: 'reversed', 'upheld', or null while open or for an action. */
function appealOutcome(notice: Notice): 'reversed' | 'upheld' | null {
  if (notice.kind !== 'appealOutcome') return null;
  if (notice.appeal?.state === 'reversed' || notice.action.kind === 'appealReversed') return 'reversed';
  return 'upheld';
}

/** The title of a statement: what happened, in one line (the dialog and the login panel are named by it). */
export function noticeHeadline(notice: Notice): string {
  const outcome = appealOutcome(notice);
  if (outcome === 'reversed') return 'Your appeal was accepted';
  if (outcome === 'upheld') return 'Your appeal was reviewed: the decision stands';
  const { kind, endsAt } = notice.action;
  switch (kind) {
    case 'warn':
      return 'You received a warning';
    case 'hide':
      return 'Your profile is hidden from feeds';
    case 'autoHide':
      return 'Your profile is hidden from new feeds for now';
    case 'suspend':
      return endsAt ? `Your account is suspended until ${formatDateTime(endsAt)}` : 'Your account is suspended';
    case 'ban':
      return 'Your account is banned';
    case 'undo':
    case 'appealReversed':
      return 'A decision about your account was undone';
    default:
      return 'A moderator reviewed your account';
  }
}

/** What the decision changes for the person, in plain words. */
function whatItMeans(notice: Notice): string {
  const outcome = appealOutcome(notice);
  if (outcome === 'reversed') {
    return 'A different moderator looked at your appeal and reversed the decision. Everything it changed is back as it was, and it no longer counts against your account.';
  }
  if (outcome === 'upheld') {
    return 'A different moderator looked at your appeal and decided to keep the decision.';
  }
  switch (notice.action.kind) {
    case 'warn':
      return 'A moderator looked at a report about you. Nothing else changes for now, but the warning counts against your account for a while, and repeated problems lead to stronger steps.';
    case 'hide':
      return "Your profile no longer appears in other people's feeds, so you will not get new matches. Your existing matches and chats continue.";
    case 'autoHide':
      return 'Several people reported your profile within a day, so it is kept out of new feeds until a moderator has looked at the reports. Your existing matches and chats continue.';
    case 'suspend':
      return 'You cannot sign in until the suspension ends. Until then your profile is hidden from feeds and match lists, and your chats are closed.';
    case 'ban':
      return 'You can no longer use PodMatch. Your profile, pictures and videos are no longer shown to anyone.';
    case 'undo':
    case 'appealReversed':
      return 'A moderator undid an earlier decision about your account. Everything it changed is back as it was.';
    default:
      return 'A moderator looked at a report about your account.';
  }
}

/** How long the decision lasts, or null when that says nothing (a warning, an undo). */
function howLong(notice: Notice): string | null {
  if (appealOutcome(notice) === 'reversed') return null;
  const { kind, endsAt } = notice.action;
  if (endsAt) return `Until ${formatDateTime(endsAt)}`;
  if (kind === 'ban') return 'Permanently';
  if (kind === 'hide') return 'Until a moderator lifts it';
  if (kind === 'autoHide') return 'Until a moderator has looked at the reports';
  return null;
}

function Row({ term, children }: { term: string; children: string }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-xs font-semibold uppercase tracking-wide text-zinc-400">{term}</dt>
      <dd className="whitespace-pre-line text-sm leading-relaxed text-zinc-100">{children}</dd>
    </div>
  );
}

/** The body of a statement of reasons: what it means, why, which rule, the reason and for how long. */
export function StatementOfReasons({ notice }: { notice: Notice }) {
  const { action, appeal } = notice;
  const outcome = appealOutcome(notice);
  const duration = howLong(notice);
  return (
    <dl className="grid gap-4" data-testid="statement-of-reasons">
      <Row term="What this means">{whatItMeans(notice)}</Row>
      {outcome && appeal?.explanation ? <Row term="The moderator's answer">{appeal.explanation}</Row> : null}
      {action.explanation ? (
        <Row term={outcome ? 'Why the decision was taken' : 'Why'}>{action.explanation}</Row>
      ) : null}
      {action.ruleText ? <Row term="Community rule">{action.ruleText}</Row> : null}
      <Row term="Reported for">{REPORT_REASON_LABELS[action.reason]}</Row>
      {duration ? <Row term="How long">{duration}</Row> : null}
      <Row term="Decided on">{formatDateTime(outcome ? notice.createdAt : action.createdAt)}</Row>
    </dl>
  );
}

export const APPEAL_SENT_TEXT =
  'Your appeal was sent. A different moderator will look at it, and we will tell you the outcome here.';

interface AppealFormProps {
  /** Sends the text; throws with what went wrong (the server's sentence is shown). */
  onSubmit: (text: string) => Promise<void>;
  /** What to say once it was sent. */
  sentText?: string;
  /** Already sent (e.g. before a reload). */
  sent?: boolean;
}

/**
 * How to appeal: a sentence, then a button opening the text field. Each decision can be appealed
 * once; a different moderator than the one who took it decides.
 */
export function AppealForm({ onSubmit, sentText = APPEAL_SENT_TEXT, sent: sentBefore = false }: AppealFormProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState(sentBefore);

  if (sent) {
    return (
      <p
        role="status"
        className="rounded-2xl border border-emerald-400/30 bg-emerald-400/10 p-3 text-sm text-emerald-100"
      >
        {sentText}
      </p>
    );
  }

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await onSubmit(text);
      setSent(true);
    } catch (error) {
      setProblem(errorMessage(error, 'Your appeal could not be sent. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      aria-labelledby={`${id}-title`}
      className="grid gap-3 rounded-2xl border border-white/10 bg-white/[0.03] p-4"
    >
      <h3 id={`${id}-title`} className="text-sm font-semibold text-white">
        Think this is a mistake?
      </h3>
      <p className="text-sm leading-relaxed text-zinc-300">
        You can appeal this decision once. A different moderator than the one who took it will look at it again.
      </p>
      {open ? (
        <form className="grid gap-2" onSubmit={submit} noValidate>
          <label htmlFor={`${id}-text`} className="text-sm text-zinc-300">
            Why should we look at it again?
          </label>
          <textarea
            id={`${id}-text`}
            value={text}
            rows={4}
            maxLength={2000}
            // biome-ignore lint/a11y/noAutofocus: the field was just asked for with the Appeal button
            autoFocus
            onChange={(event) => {
              setText(event.target.value);
              setProblem(null);
            }}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            className="min-h-28 w-full rounded-2xl border border-white/10 bg-white/[0.04] p-3 text-sm text-zinc-100 placeholder:text-zinc-500 focus:border-intent-soft/70 focus:outline-none aria-invalid:border-red-500/70"
          />
          <p id={`${id}-problem`} role="alert" className="text-xs text-red-300 empty:hidden">
            {problem}
          </p>
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="ghost" size="sm" onClick={() => setOpen(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" size="sm" disabled={busy} aria-busy={busy}>
              {busy ? <Spinner /> : null}
              Send appeal
            </Button>
          </div>
        </form>
      ) : (
        <Button variant="outline" className="w-full sm:w-auto sm:justify-self-start" onClick={() => setOpen(true)}>
          Appeal
        </Button>
      )}
    </section>
  );
}
