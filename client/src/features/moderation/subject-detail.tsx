import type { ReportReason } from '@shared/schemas/matches';
import {
  type ModerationActionBody,
  type ModerationActionKind,
  STRIKE_PERIOD_DAYS,
  type SubjectDetail as SubjectDetailData,
} from '@shared/schemas/moderation';
import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, Lock, LockOpen, X } from 'lucide-react';
import { type ReactNode, type Ref, useId, useImperativeHandle, useRef } from 'react';
import { PersonPicture } from '@/components/person-picture';
import { formatDateTime } from '@/components/statement-of-reasons';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { relativeTime } from '@/lib/relative-time';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';
import { toast } from '@/lib/toast';
import { ActionForm, type ActionFormHandle } from './action-form';
import { Badge, StandingBadges } from './badges';
import { ACTION_LABELS, EVENT_LABELS, RULE_LABELS, STATE_LABELS } from './moderation-labels';
import { subjectQuery, useSubjectMutations } from './moderation-queries';

export interface SubjectDetailHandle {
  claim: () => void;
  choose: (kind: ModerationActionKind) => void;
}

function Time({ value }: { value: string }) {
  return (
    <time dateTime={value} title={formatDateTime(value)} className="text-xs text-zinc-400">
      {relativeTime(value)}
    </time>
  );
}

function Section({ title, children, count }: { title: string; children: ReactNode; count?: number }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="grid gap-3">
      <h3 id={id} className="text-sm font-semibold uppercase tracking-wide text-zinc-400">
        {title}
        {count !== undefined ? <span className="ml-2 text-zinc-500">{count}</span> : null}
      </h3>
      {children}
    </section>
  );
}

/** The reason most of the open reports give: the action form's first reason. */
function mainReason(detail: SubjectDetailData): ReportReason {
  return (
    detail.subject.reasons.toSorted((a, b) => b.count - a.count)[0]?.reason ?? detail.reports[0]?.reason ?? 'other'
  );
}

type Snapshot = NonNullable<SubjectDetailData['reports'][number]['profile']>;

function ProfileSnapshot({ profile }: { profile: Snapshot }) {
  return (
    <div className="flex items-center gap-3">
      <PersonPicture
        name={profile.displayName}
        picture={profile.profilePicture}
        className="size-14 shrink-0 rounded-2xl bg-white/[0.06] object-cover"
      />
      <div className="min-w-0">
        <p className="font-semibold text-white">{profile.displayName}</p>
        {profile.tagline ? <p className="text-sm text-zinc-300">{profile.tagline}</p> : null}
        {profile.intent ? <p className="text-xs capitalize text-zinc-400">{profile.intent}</p> : null}
      </div>
    </div>
  );
}

const sameSnapshot = (a: Snapshot | null, b: Snapshot | null) => JSON.stringify(a) === JSON.stringify(b);

interface SubjectDetailProps {
  ref?: Ref<SubjectDetailHandle>;
  subjectId: number;
  /** The signed-in moderator. */
  userId: number;
  onClose: () => void;
}

/**
 * One reported person: who reported them and why, their profile and messages as they were when
 * reported, what moderators did before, their appeals, and the claim and action form.
 */
export function SubjectDetail({ ref, subjectId, userId, onClose }: SubjectDetailProps) {
  const titleId = useId();
  const { data: detail, error, isPending, refetch } = useQuery(subjectQuery(subjectId));
  const { claim, release, act } = useSubjectMutations(subjectId);
  const form = useRef<ActionFormHandle>(null);

  const claimedBy = detail?.subject.claimedBy ?? null;
  const claimedByMe = claimedBy?.id === userId;
  const doClaim = () => {
    if (!claimedBy && !claim.isPending) claim.mutate(undefined, { onSuccess: () => release.reset() });
  };
  useImperativeHandle(ref, () => ({
    claim: doClaim,
    choose: (kind) => form.current?.choose(kind),
  }));

  if (isPending) {
    return (
      <div role="status" aria-label="Loading" className="grid place-items-center py-16">
        <Spinner className="size-6 text-zinc-300" />
      </div>
    );
  }
  if (!detail) {
    return (
      <div role="alert" className="grid gap-3 rounded-3xl border border-white/10 bg-white/[0.03] p-6 text-center">
        <p className="text-sm text-zinc-300">{errorMessage(error, 'This person could not be loaded.')}</p>
        <div className="flex justify-center gap-2">
          <Button variant="outline" size="sm" onClick={() => void refetch()}>
            Try again
          </Button>
          <Button variant="ghost" size="sm" onClick={onClose}>
            Back to queue
          </Button>
        </div>
      </div>
    );
  }

  const { subject, reports, events, appeals, suggestion } = detail;
  const snapshot = reports.find((r) => r.profile)?.profile ?? null;
  const claimProblem = claim.error ?? release.error;
  const runAction = async (body: ModerationActionBody) => {
    try {
      const { event } = await act.mutateAsync(body);
      toast({ title: `${EVENT_LABELS[event.kind]}: ${subject.displayName}` });
      return true;
    } catch {
      return false;
    }
  };

  return (
    <article aria-labelledby={titleId} data-testid="subject-detail" className="grid gap-6">
      <header className="grid gap-3">
        <div className="flex items-start gap-2">
          <Button
            variant="ghost"
            size="icon"
            className="-ml-2 shrink-0 lg:hidden"
            aria-label="Back to queue"
            onClick={onClose}
          >
            <ArrowLeft aria-hidden="true" className="size-5" />
          </Button>
          <div className="min-w-0 flex-1">
            <h2 id={titleId} className="text-2xl font-bold tracking-tight text-white">
              {subject.displayName}
            </h2>
            <p className="text-sm text-zinc-400">
              {subject.username ? `@${subject.username}` : 'Account deleted'} · {STATE_LABELS[subject.state]} ·{' '}
              {subject.reporterCount} {subject.reporterCount === 1 ? 'reporter' : 'reporters'}
            </p>
          </div>
          {/* A wrapper: the button's own inline-flex would win over `hidden`. */}
          <div className="hidden shrink-0 lg:block">
            <Button variant="ghost" size="icon" aria-label="Close (Esc)" onClick={onClose}>
              <X aria-hidden="true" className="size-5" />
            </Button>
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <StandingBadges standing={subject.standing} />
          {subject.strikes > 0 ? (
            <Badge tone="amber">
              {subject.strikes} {subject.strikes === 1 ? 'strike' : 'strikes'} in {STRIKE_PERIOD_DAYS} days
            </Badge>
          ) : null}
          {subject.standing.suspendedUntil ? (
            <span className="text-xs text-zinc-400">until {formatDateTime(subject.standing.suspendedUntil)}</span>
          ) : null}
        </div>
        <div className="flex flex-wrap items-center gap-3 rounded-2xl border border-white/10 bg-white/[0.03] p-3">
          <p className="min-w-0 flex-1 text-sm text-zinc-300">
            {claimedByMe
              ? 'You are handling this person.'
              : claimedBy
                ? `Claimed by @${claimedBy.username}`
                : 'Nobody is handling this person yet.'}
          </p>
          {claimedByMe ? (
            <Button variant="outline" size="sm" disabled={release.isPending} onClick={() => release.mutate()}>
              {release.isPending ? <Spinner /> : <LockOpen aria-hidden="true" className="size-4" />}
              Release
            </Button>
          ) : claimedBy ? null : (
            <Button size="sm" disabled={claim.isPending} onClick={doClaim}>
              {claim.isPending ? <Spinner /> : <Lock aria-hidden="true" className="size-4" />}
              Claim
            </Button>
          )}
        </div>
        {claimProblem ? (
          <p role="alert" className="text-sm text-red-300">
            {errorMessage(claimProblem, 'That did not work. Please try again.')}
          </p>
        ) : null}
      </header>

      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_24rem] xl:items-start">
        <div className="grid gap-6">
          <p className="rounded-2xl border border-intent-soft/30 bg-intent/10 p-3 text-sm text-zinc-100">
            Suggested next step: <span className="font-semibold">{ACTION_LABELS[suggestion]}</span>
            {subject.strikes > 0 ? ` (after ${subject.strikes} ${subject.strikes === 1 ? 'strike' : 'strikes'})` : null}
            .
          </p>

          {snapshot ? (
            <Section title="Profile as others saw it">
              <ProfileSnapshot profile={snapshot} />
            </Section>
          ) : null}

          <Section title="Reports" count={reports.length}>
            <ul className="grid gap-3">
              {reports.map((report) => {
                const reporter = report.reporter ? `@${report.reporter.username}` : 'a deleted account';
                return (
                  <li key={report.id}>
                    <article
                      aria-label={`Report by ${reporter}`}
                      className="grid gap-3 rounded-2xl border border-white/10 bg-white/[0.03] p-4"
                    >
                      <div className="flex flex-wrap items-center gap-2">
                        <Badge tone="red">{REPORT_REASON_LABELS[report.reason]}</Badge>
                        <span className="text-sm text-zinc-300">
                          by{' '}
                          {report.reporter ? (
                            <>
                              <span className="font-medium text-white">{reporter}</span> ({report.reporter.displayName})
                            </>
                          ) : (
                            'a person who deleted their account'
                          )}
                        </span>
                        <Time value={report.createdAt} />
                        {report.open ? null : <Badge>Closed</Badge>}
                      </div>
                      {report.details ? (
                        <p className="whitespace-pre-line text-sm text-zinc-200">{report.details}</p>
                      ) : null}
                      {report.profile && !sameSnapshot(report.profile, snapshot) ? (
                        <div className="grid gap-2">
                          <p className="text-xs text-zinc-400">Their profile at this report:</p>
                          <ProfileSnapshot profile={report.profile} />
                        </div>
                      ) : null}
                      {report.messages.length > 0 ? (
                        <ol aria-label="Reported messages" className="grid gap-2">
                          {report.messages.map((message) => (
                            <li key={message.seq} className="grid justify-items-start gap-1">
                              <p className="max-w-full whitespace-pre-line rounded-2xl rounded-bl-md bg-white/[0.08] px-3 py-2 text-sm text-zinc-100">
                                {message.content}
                              </p>
                              <Time value={message.sentAt} />
                            </li>
                          ))}
                        </ol>
                      ) : (
                        <p className="text-xs text-zinc-400">No messages were attached to this report.</p>
                      )}
                    </article>
                  </li>
                );
              })}
            </ul>
          </Section>

          <Section title="History" count={events.length}>
            {events.length === 0 ? (
              <p className="text-sm text-zinc-400">No moderator has acted on this person yet.</p>
            ) : (
              <ol className="grid gap-2">
                {events.map((event) => (
                  <li key={event.id} className="grid gap-1 rounded-2xl border border-white/10 p-3 text-sm">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-semibold text-white">{EVENT_LABELS[event.kind]}</span>
                      <span className="text-zinc-400">
                        {event.moderator ? `by @${event.moderator.username}` : 'automatically'}
                      </span>
                      <Time value={event.createdAt} />
                    </div>
                    <p className="text-xs text-zinc-400">
                      {REPORT_REASON_LABELS[event.reason]}
                      {event.rule ? ` · ${RULE_LABELS[event.rule]}` : ''}
                      {event.endsAt ? ` · until ${formatDateTime(event.endsAt)}` : ''}
                    </p>
                    {event.explanation ? (
                      <p className="whitespace-pre-line text-zinc-200">{event.explanation}</p>
                    ) : null}
                  </li>
                ))}
              </ol>
            )}
          </Section>

          {appeals.length > 0 ? (
            <Section title="Appeals" count={appeals.length}>
              <ul className="grid gap-2">
                {appeals.map((appeal) => (
                  <li key={appeal.id} className="grid gap-1 rounded-2xl border border-white/10 p-3 text-sm">
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-semibold capitalize text-white">{appeal.state}</span>
                      <span className="text-zinc-400">against “{EVENT_LABELS[appeal.action.kind]}”</span>
                      <Time value={appeal.createdAt} />
                    </div>
                    <p className="whitespace-pre-line text-zinc-200">{appeal.text}</p>
                  </li>
                ))}
              </ul>
            </Section>
          ) : null}
        </div>

        <div className="xl:sticky xl:top-32">
          <ActionForm
            key={subject.subjectId}
            ref={form}
            name={subject.displayName}
            defaultReason={mainReason(detail)}
            canAct={claimedByMe}
            pending={act.isPending}
            problem={act.error ? errorMessage(act.error, 'The action did not go through. Please try again.') : null}
            onSubmit={runAction}
          />
        </div>
      </div>
    </article>
  );
}
