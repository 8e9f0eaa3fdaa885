import { Link } from 'react-router-dom';
import { formatDateTime } from '@/components/statement-of-reasons';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';
import { EVENT_LABELS, RULE_LABELS } from './moderation-labels';
import { useAuditLog } from './moderation-queries';

/** Every moderator action and automatic hide, newest first; nobody can change it (admins only). */
export function AuditLogPanel() {
  const log = useAuditLog();
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];
  if (log.isPending) {
    return (
      <div role="status" aria-label="Loading the audit log" className="grid place-items-center py-10">
        <Spinner className="size-6 text-zinc-300" />
      </div>
    );
  }
  if (log.isError && events.length === 0) {
    return (
      <p role="alert" className="text-sm text-red-300">
        {errorMessage(log.error, 'The audit log could not be loaded. Please try again.')}
      </p>
    );
  }
  return (
    <div className="grid gap-4">
      {events.length === 0 ? (
        <p className="rounded-2xl border border-dashed border-white/15 p-6 text-center text-sm text-zinc-400">
          No moderator has acted yet.
        </p>
      ) : (
        <ol aria-label="Audit log" className="grid gap-2">
          {events.map((event) => (
            <li
              key={event.id}
              className="grid gap-1 rounded-2xl border border-white/10 bg-white/[0.03] p-3 text-sm md:grid-cols-[12rem_10rem_minmax(0,1fr)] md:gap-4"
            >
              <time dateTime={event.createdAt} className="text-xs text-zinc-400 md:text-sm">
                {formatDateTime(event.createdAt)}
              </time>
              <p>
                <span className="font-semibold text-white">{EVENT_LABELS[event.kind]}</span>
                <span className="block text-xs text-zinc-400">
                  {event.moderator ? `@${event.moderator.username}` : 'automatic'}
                </span>
              </p>
              <div className="grid gap-1">
                <p className="text-xs text-zinc-400">
                  <Link
                    to={`?tab=queue&subject=${event.subjectId}`}
                    className="inline-flex min-h-11 items-center text-intent-soft underline-offset-2 hover:underline"
                  >
                    {event.subjectName}
                  </Link>
                  {` · ${REPORT_REASON_LABELS[event.reason]}`}
                  {event.rule ? ` · ${RULE_LABELS[event.rule]}` : ''}
                  {event.endsAt ? ` · until ${formatDateTime(event.endsAt)}` : ''}
                </p>
                {event.explanation ? <p className="whitespace-pre-line text-zinc-200">{event.explanation}</p> : null}
              </div>
            </li>
          ))}
        </ol>
      )}
      {log.isError ? (
        <p role="alert" className="text-sm text-red-300">
          {errorMessage(log.error, 'More entries could not be loaded. Please try again.')}
        </p>
      ) : null}
      {log.hasNextPage ? (
        <Button
          variant="outline"
          className="justify-self-center"
          disabled={log.isFetchingNextPage}
          onClick={() => void log.fetchNextPage()}
        >
          {log.isFetchingNextPage ? <Spinner /> : null}
          Load more
        </Button>
      ) : null}
    </div>
  );
}
