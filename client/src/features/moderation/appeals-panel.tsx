import type { Appeal } from '@shared/schemas/moderation';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { formatDateTime } from '@/components/statement-of-reasons';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { relativeTime } from '@/lib/relative-time';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';
import { toast } from '@/lib/toast';
import { EVENT_LABELS, RULE_LABELS } from './moderation-labels';
import { appealsQuery, useDecideAppeal } from './moderation-queries';

function AppealCard({ appeal }: { appeal: Appeal }) {
  const id = useId();
  const name = appeal.action.subjectName;
  const decide = useDecideAppeal(appeal.id);
  const [explanation, setExplanation] = useState('');
  const { action } = appeal;

  const submit = (outcome: 'upheld' | 'reversed') =>
    decide.mutate(
      { outcome, explanation },
      { onSuccess: () => toast({ title: outcome === 'reversed' ? `Reversed: ${name}` : `Upheld: ${name}` }) },
    );

  return (
    <li>
      <article
        aria-label={`Appeal by ${name}`}
        className="grid gap-4 rounded-3xl border border-white/10 bg-white/[0.03] p-4 sm:p-5"
      >
        <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <h3 className="text-lg font-semibold text-white">{name}</h3>
          <span className="text-xs text-zinc-400">
            appealed <time dateTime={appeal.createdAt}>{relativeTime(appeal.createdAt)}</time>
          </span>
          <Link
            to={`?tab=queue&subject=${appeal.subjectId}`}
            className="ml-auto inline-flex min-h-11 items-center text-sm text-intent-soft underline-offset-2 hover:underline"
          >
            Reports and history
          </Link>
        </header>
        <div className="grid gap-4 md:grid-cols-2">
          <section className="grid content-start gap-1 rounded-2xl bg-white/[0.04] p-3 text-sm">
            <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-400">The decision</h4>
            <p className="font-semibold text-white">
              {EVENT_LABELS[action.kind]}
              {action.moderator ? (
                <span className="font-normal text-zinc-400"> by @{action.moderator.username}</span>
              ) : null}
            </p>
            <p className="text-xs text-zinc-400">
              {REPORT_REASON_LABELS[action.reason]}
              {action.rule ? ` · ${RULE_LABELS[action.rule]}` : ''}
              {action.endsAt ? ` · until ${formatDateTime(action.endsAt)}` : ''}
            </p>
            <p className="whitespace-pre-line text-zinc-200">{action.explanation}</p>
          </section>
          <section className="grid content-start gap-1 rounded-2xl bg-white/[0.04] p-3 text-sm">
            <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-400">Their appeal</h4>
            <p className="whitespace-pre-line text-zinc-100">{appeal.text}</p>
          </section>
        </div>
        <form className="grid gap-2" onSubmit={(event) => event.preventDefault()} noValidate>
          <label htmlFor={`${id}-explanation`} className="text-sm text-zinc-300">
            Your answer (the person reads this)
          </label>
          <textarea
            id={`${id}-explanation`}
            value={explanation}
            rows={3}
            maxLength={1000}
            onChange={(event) => setExplanation(event.target.value)}
            className="min-h-24 w-full rounded-2xl border border-white/10 bg-white/[0.04] p-3 text-sm text-zinc-100 focus:border-intent-soft/70 focus:outline-none"
          />
          <p role="alert" className="text-sm text-red-300 empty:hidden">
            {decide.error ? errorMessage(decide.error, 'The decision did not go through. Please try again.') : null}
          </p>
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="outline" disabled={decide.isPending} onClick={() => submit('upheld')}>
              Uphold
            </Button>
            <Button disabled={decide.isPending} onClick={() => submit('reversed')}>
              {decide.isPending ? <Spinner /> : null}
              Reverse
            </Button>
          </div>
          <p className="text-xs text-zinc-400">
            Uphold keeps the decision. Reverse undoes it and its strike. Either way the person is told, with your
            answer.
          </p>
        </form>
      </article>
    </li>
  );
}

/** Open appeals of decisions other moderators took (the server leaves out the caller's own). */
export function AppealsPanel() {
  const query = useQuery(appealsQuery());
  const appeals = query.data?.appeals.filter((appeal) => appeal.state === 'open') ?? [];
  if (query.isPending) {
    return (
      <div role="status" aria-label="Loading appeals" className="grid place-items-center py-10">
        <Spinner className="size-6 text-zinc-300" />
      </div>
    );
  }
  if (query.isError) {
    return (
      <p role="alert" className="text-sm text-red-300">
        {errorMessage(query.error, 'The appeals could not be loaded. Please try again.')}
      </p>
    );
  }
  if (appeals.length === 0) {
    return (
      <p className="rounded-2xl border border-dashed border-white/15 p-6 text-center text-sm text-zinc-400">
        No appeals are waiting for you.
      </p>
    );
  }
  return (
    <ul aria-label="Appeals" className="mx-auto grid max-w-3xl gap-4">
      {appeals.map((appeal) => (
        <AppealCard key={appeal.id} appeal={appeal} />
      ))}
    </ul>
  );
}
