import { REPORT_REASONS, type ReportReason } from '@shared/schemas/matches';
import { QUEUE_STATES, type QueueState, type QueueSubject } from '@shared/schemas/moderation';
import { Keyboard, RefreshCw } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { relativeTime } from '@/lib/relative-time';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';
import { Badge, StandingBadges } from './badges';
import { STATE_LABELS } from './moderation-labels';
import { useQueue } from './moderation-queries';
import { SubjectDetail, type SubjectDetailHandle } from './subject-detail';
import { SHORTCUTS, useQueueShortcuts } from './use-queue-shortcuts';

const selectClasses =
  'h-11 w-full rounded-2xl border border-white/10 bg-white/[0.04] px-3 text-sm text-zinc-100 focus:border-intent-soft/70 focus:outline-none';

const parseState = (value: string | null): QueueState =>
  QUEUE_STATES.includes(value as QueueState) ? (value as QueueState) : 'open';
const parseReason = (value: string | null): ReportReason | undefined =>
  REPORT_REASONS.includes(value as ReportReason) ? (value as ReportReason) : undefined;
const parseId = (value: string | null): number | null => (value && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : null);

function QueueItem({
  subject,
  open,
  highlighted,
  onOpen,
  buttonRef,
}: {
  subject: QueueSubject;
  open: boolean;
  highlighted: boolean;
  onOpen: () => void;
  buttonRef: (el: HTMLButtonElement | null) => void;
}) {
  const summaryId = useId();
  const reporters = `${subject.reporterCount} ${subject.reporterCount === 1 ? 'reporter' : 'reporters'}`;
  return (
    <li>
      <button
        ref={buttonRef}
        type="button"
        aria-label={subject.displayName}
        aria-describedby={summaryId}
        aria-current={open ? 'true' : undefined}
        data-highlighted={highlighted || undefined}
        onClick={onOpen}
        className={cn(
          'grid w-full gap-1.5 rounded-2xl border p-3 text-left transition',
          open ? 'border-intent-soft/70 bg-intent/15' : 'border-white/10 bg-white/[0.03] hover:bg-white/[0.06]',
          highlighted && !open && 'border-white/40',
        )}
      >
        <span className="flex items-baseline gap-2">
          <span className="min-w-0 flex-1 truncate font-semibold text-white">{subject.displayName}</span>
          <time dateTime={subject.latestReportAt} className="shrink-0 text-xs text-zinc-400">
            {relativeTime(subject.latestReportAt)}
          </time>
        </span>
        <span id={summaryId} className="text-xs text-zinc-300">
          {reporters} · {subject.reasons.map((r) => `${REPORT_REASON_LABELS[r.reason]} ${r.count}`).join(', ')}
          {subject.state !== 'open' ? ` · ${STATE_LABELS[subject.state]}` : ''}
          {subject.claimedBy ? ` · claimed by @${subject.claimedBy.username}` : ''}
        </span>
        <span className="flex flex-wrap gap-1.5 empty:hidden">
          {subject.accountDeleted ? <Badge>Account deleted</Badge> : null}
          <StandingBadges standing={subject.standing} />
          {subject.strikes > 0 ? (
            <Badge tone="amber">
              {subject.strikes} {subject.strikes === 1 ? 'strike' : 'strikes'}
            </Badge>
          ) : null}
        </span>
      </button>
    </li>
  );
}

function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  return (
    <section
      aria-labelledby={titleId}
      className="grid gap-2 rounded-2xl border border-white/10 bg-zinc-900 p-4 text-sm shadow-xl"
    >
      <div className="flex items-center justify-between">
        <h3 id={titleId} className="font-semibold text-white">
          Keyboard shortcuts
        </h3>
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2">
        {SHORTCUTS.map(({ keys, does }) => (
          <div key={does} className="contents">
            <dt className="flex gap-1">
              {keys.map((key) => (
                <kbd
                  key={key}
                  className="rounded-md border border-white/20 bg-white/[0.06] px-1.5 text-xs text-zinc-100"
                >
                  {key}
                </kbd>
              ))}
            </dt>
            <dd className="text-zinc-300">{does}</dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-zinc-400">Shortcuts do nothing while you type in a field.</p>
    </section>
  );
}

/**
 * The queue: reported people grouped (the server orders them newest and most reported first), the
 * state and reason filters, and the open person's detail beside the list (below it on a phone, in
 * its place). The filters and the open person are in the URL, so Back closes a person on a phone.
 */
export function QueuePanel({ userId }: { userId: number }) {
  const [params, setParams] = useSearchParams();
  const state = parseState(params.get('state'));
  const reason = parseReason(params.get('reason'));
  const openId = parseId(params.get('subject'));
  const queue = useQueue({ state, reason });
  const subjects = queue.data?.subjects ?? [];
  const [cursorId, setCursorId] = useState<number | null>(openId);
  const [help, setHelp] = useState(false);
  const items = useRef(new Map<number, HTMLButtonElement>());
  const detail = useRef<SubjectDetailHandle>(null);
  const cursor = Math.max(
    0,
    subjects.findIndex((s) => s.subjectId === (cursorId ?? openId)),
  );

  const update = (changes: Record<string, string | null>, replace = false) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null) next.delete(key);
          else next.set(key, value);
        }
        return next;
      },
      { replace },
    );
  const open = (subjectId: number) => {
    setCursorId(subjectId);
    update({ subject: String(subjectId) });
  };
  const close = () => {
    update({ subject: null });
    // Back to where the moderator was in the list.
    if (openId !== null) requestAnimationFrame(() => items.current.get(openId)?.focus());
  };
  const move = (step: number) => {
    if (subjects.length === 0) return;
    const next = subjects[Math.min(subjects.length - 1, Math.max(0, cursor + step))];
    if (!next) return;
    setCursorId(next.subjectId);
    items.current.get(next.subjectId)?.focus();
  };
  const chooser = (kind: 'warn' | 'hide' | 'suspend' | 'ban' | 'dismiss') => () => detail.current?.choose(kind);

  useQueueShortcuts({
    next: () => move(1),
    previous: () => move(-1),
    open: () => {
      const target = subjects[cursor];
      if (target) open(target.subjectId);
    },
    claim: () => detail.current?.claim(),
    warn: chooser('warn'),
    hide: chooser('hide'),
    suspend: chooser('suspend'),
    ban: chooser('ban'),
    dismiss: chooser('dismiss'),
    close: () => {
      if (help) setHelp(false);
      else if (openId !== null) close();
    },
    help: () => setHelp((shown) => !shown),
  });

  // A person opened from elsewhere (a link from an appeal) is also the highlighted one.
  useEffect(() => {
    if (openId !== null) setCursorId(openId);
  }, [openId]);

  return (
    <div className="grid gap-4 lg:grid-cols-[22rem_minmax(0,1fr)] lg:items-start">
      <div className={cn('gap-3', openId === null ? 'grid' : 'hidden lg:grid')}>
        <div className="grid grid-cols-2 gap-2">
          <label className="grid gap-1 text-xs text-zinc-400">
            Status
            <select
              className={selectClasses}
              value={state}
              onChange={(event) => update({ state: event.target.value === 'open' ? null : event.target.value }, true)}
            >
              {QUEUE_STATES.map((value) => (
                <option key={value} value={value}>
                  {STATE_LABELS[value]}
                </option>
              ))}
            </select>
          </label>
          <label className="grid gap-1 text-xs text-zinc-400">
            Reason
            <select
              className={selectClasses}
              value={reason ?? ''}
              onChange={(event) => update({ reason: event.target.value || null }, true)}
            >
              <option value="">All reasons</option>
              {REPORT_REASONS.map((value) => (
                <option key={value} value={value}>
                  {REPORT_REASON_LABELS[value]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="flex items-center justify-between gap-2">
          <p className="text-sm text-zinc-400" aria-live="polite">
            {queue.isSuccess ? `${subjects.length} ${subjects.length === 1 ? 'person' : 'people'}` : ''}
          </p>
          <div className="flex gap-1">
            {/* For keyboards: not on a phone. A wrapper, as the button's inline-flex would win over `hidden`. */}
            <div className="hidden sm:block">
              <Button variant="ghost" size="sm" aria-expanded={help} onClick={() => setHelp((shown) => !shown)}>
                <Keyboard aria-hidden="true" className="size-4" />
                Shortcuts
              </Button>
            </div>
            <Button variant="ghost" size="icon" aria-label="Refresh the queue" onClick={() => void queue.refetch()}>
              {queue.isFetching ? <Spinner /> : <RefreshCw aria-hidden="true" className="size-4" />}
            </Button>
          </div>
        </div>
        {help ? <ShortcutsHelp onClose={() => setHelp(false)} /> : null}
        {queue.isPending ? (
          <div role="status" aria-label="Loading the queue" className="grid place-items-center py-10">
            <Spinner className="size-6 text-zinc-300" />
          </div>
        ) : queue.isError ? (
          <p role="alert" className="rounded-2xl border border-white/10 p-4 text-sm text-red-300">
            {errorMessage(queue.error, 'The queue could not be loaded. Please try again.')}
          </p>
        ) : subjects.length === 0 ? (
          <p className="rounded-2xl border border-dashed border-white/15 p-6 text-center text-sm text-zinc-400">
            {state === 'open' ? 'Nothing to review. The queue is empty.' : 'Nobody here.'}
          </p>
        ) : (
          <ul aria-label="Queue" className="grid gap-2">
            {subjects.map((subject, index) => (
              <QueueItem
                key={subject.subjectId}
                subject={subject}
                open={subject.subjectId === openId}
                highlighted={index === cursor}
                onOpen={() => open(subject.subjectId)}
                buttonRef={(el) => {
                  if (el) items.current.set(subject.subjectId, el);
                  else items.current.delete(subject.subjectId);
                }}
              />
            ))}
          </ul>
        )}
      </div>
      <div className={cn(openId === null && 'hidden lg:block')}>
        {openId !== null ? (
          <SubjectDetail key={openId} ref={detail} subjectId={openId} userId={userId} onClose={close} />
        ) : (
          <p className="hidden rounded-3xl border border-dashed border-white/15 p-10 text-center text-sm text-zinc-400 lg:block">
            Choose a person from the queue to see their reports and messages.
            <span className="mt-1 block text-xs text-zinc-500">Press ? for keyboard shortcuts.</span>
          </p>
        )}
      </div>
    </div>
  );
}
