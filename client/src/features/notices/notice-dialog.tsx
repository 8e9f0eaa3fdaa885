import type { Notice } from '@shared/schemas/moderation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ShieldAlert, ShieldCheck } from 'lucide-react';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { AppealForm, noticeHeadline, StatementOfReasons } from '@/components/statement-of-reasons';
import { Button } from '@/components/ui/button';
import { firstControlOf, handleModalKeys } from '@/lib/modal-keys';
import { appealNotice, dropNotice, markNoticeSeen, noticesQuery } from './notice-queries';

/**
 * A decision whose appeal outcome is also waiting (a suspended person saw the decision on the login
 * screen, appealed, and signs in once it was decided): the outcome alone is shown.
 */
const isSuperseded = (notice: Notice, all: readonly Notice[]) =>
  notice.kind === 'action' && all.some((n) => n.kind === 'appealOutcome' && n.action.id === notice.action.id);

/** Oldest first: a person reads what happened in the order it happened. */
const byTime = (a: Notice, b: Notice) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id;

/**
 * The statements of reasons a person has not seen yet (docs/moderation.md), one dialog at a time:
 * read when the app opens, and live from 'moderation:notice' (the realtime bridge adds them to the
 * same cached list). Mounted with the realtime bridge while signed in.
 */
export function NoticeHost({ userId }: { userId: number }) {
  const queryClient = useQueryClient();
  const { data } = useQuery(noticesQuery(userId));
  const notices = data?.notices ?? [];
  const stale = notices.filter((n) => isSuperseded(n, notices)).map((n) => n.id);
  const notice = notices.filter((n) => !stale.includes(n.id)).toSorted(byTime)[0];
  // Read, as far as the person is concerned: the outcome of their appeal says what became of it.
  const staleKey = stale.join(',');
  useEffect(() => {
    if (!staleKey) return;
    for (const id of staleKey.split(',').map(Number)) {
      dropNotice(queryClient, userId, id);
      void markNoticeSeen(userId, id).catch(() => {});
    }
  }, [staleKey, queryClient, userId]);
  return notice ? createPortal(<NoticeDialog key={notice.id} userId={userId} notice={notice} />, document.body) : null;
}

function NoticeDialog({ userId, notice }: { userId: number; notice: Notice }) {
  const queryClient = useQueryClient();
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const [appealed, setAppealed] = useState(false);
  const reversed = notice.kind === 'appealOutcome' && notice.appeal?.state === 'reversed';
  const Icon = reversed || notice.action.kind === 'undo' ? ShieldCheck : ShieldAlert;

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    firstControlOf(panel.current)?.focus();
    return () => opener?.focus?.();
  }, []);

  // "Got it": gone from this tab at once; if the server did not hear it, the notice comes back the
  // next time the app opens, which is better than never showing it.
  const seen = () => {
    dropNotice(queryClient, userId, notice.id);
    void markNoticeSeen(userId, notice.id).catch(() => {});
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => handleModalKeys(event, panel.current, seen);

  return (
    <div className="fixed inset-0 z-50 grid place-items-end bg-black/70 sm:place-items-center sm:p-4">
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
        data-testid="notice-dialog"
        className="relative grid max-h-[92dvh] w-full gap-5 overflow-y-auto rounded-t-3xl border border-white/10 bg-zinc-900 p-5 pb-[max(1.25rem,env(safe-area-inset-bottom))] shadow-2xl sm:max-w-lg sm:rounded-3xl sm:p-6"
      >
        <div className="flex items-start gap-3">
          <span
            className={
              reversed
                ? 'grid size-10 shrink-0 place-items-center rounded-2xl bg-emerald-400/15 text-emerald-300'
                : 'grid size-10 shrink-0 place-items-center rounded-2xl bg-red-400/15 text-red-300'
            }
          >
            <Icon aria-hidden="true" className="size-5" />
          </span>
          <div className="grid gap-1">
            <p className="text-xs font-medium uppercase tracking-wide text-zinc-400">A message from our moderators</p>
            <h2 id={titleId} className="text-lg font-semibold leading-snug text-white">
              {noticeHeadline(notice)}
            </h2>
          </div>
        </div>
        <StatementOfReasons notice={notice} />
        {notice.canAppeal || appealed ? (
          <AppealForm
            onSubmit={async (text) => {
              await appealNotice(userId, notice, text);
              setAppealed(true);
            }}
          />
        ) : null}
        <Button size="lg" className="w-full" onClick={seen}>
          Got it
        </Button>
      </div>
    </div>
  );
}
