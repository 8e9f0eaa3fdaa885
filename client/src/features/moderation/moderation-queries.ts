import { api } from '@shared/api';
import type { ReportReason } from '@shared/schemas/matches';
import {
  AppealDecisionBodySchema,
  MODERATION_TEXTS,
  type ModerationActionBody,
  ModerationActionBodySchema,
  type QueueState,
  type QueueSubject,
} from '@shared/schemas/moderation';
import { type QueryClient, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, checkInput, endpointQuery, endpointUrl, InputProblem } from '@/lib/api-client';

/** A moderator keeps the queue open while they work: it is read again every half minute. */
const QUEUE_REFRESH_MS = 30_000;

export interface QueueFilters {
  state: QueueState;
  reason?: ReportReason;
}

export function queueQuery(filters: QueueFilters) {
  return endpointQuery(api.moderationQueue, { query: filters });
}

export function useQueue(filters: QueueFilters) {
  return useQuery({ ...queueQuery(filters), refetchInterval: QUEUE_REFRESH_MS, refetchOnWindowFocus: true });
}

export function subjectQuery(subjectId: number) {
  return endpointQuery(api.moderationSubject, { params: { subjectId } });
}

export function appealsQuery() {
  return endpointQuery(api.moderationAppeals, {});
}

export function transparencyQuery(range: { from?: string; to?: string }) {
  return endpointQuery(api.adminTransparency, { query: range });
}

/** Every moderation answer in the cache (queue, subjects, appeals, audit log, counts) is read again. */
export function refreshModeration(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: ({ queryKey }) => typeof queryKey[0] === 'string' && /^\/api\/(moderation|admin)\//.test(queryKey[0]),
  });
}

/** A subject's queue entry changed (claimed, acted on): its detail shows it at once. */
function setSubject(queryClient: QueryClient, subject: QueueSubject): void {
  queryClient.setQueryData(subjectQuery(subject.subjectId).queryKey, (current) =>
    current ? { ...current, subject: { ...current.subject, ...subject } } : current,
  );
}

/**
 * Claim, release and act on one subject. Whatever the answer (another moderator may have claimed
 * them: 409), the subject and the queue are read again afterwards.
 */
export function useSubjectMutations(subjectId: number) {
  const queryClient = useQueryClient();
  const settle = () => refreshModeration(queryClient);
  const claim = useMutation({
    mutationFn: () => apiRequest(api.moderationClaim, { params: { subjectId } }),
    onSuccess: (subject) => setSubject(queryClient, subject),
    onSettled: settle,
  });
  const release = useMutation({
    mutationFn: () => apiRequest(api.moderationRelease, { params: { subjectId } }),
    onSettled: settle,
  });
  const act = useMutation({
    mutationFn: (input: ModerationActionBody) => {
      const suspend = input.kind === 'suspend';
      const { days } = input;
      if (suspend && !(days !== undefined && Number.isInteger(days) && days >= 1 && days <= 365)) {
        throw new InputProblem(MODERATION_TEXTS.suspendDays);
      }
      const body = checkInput(ModerationActionBodySchema, { ...input, days: suspend ? days : undefined });
      return apiRequest(api.moderationAct, { params: { subjectId }, body });
    },
    onSuccess: ({ subject }) => setSubject(queryClient, subject),
    onSettled: (_data, error) => {
      if (!(error instanceof InputProblem)) void settle();
    },
  });
  return { claim, release, act };
}

export function useDecideAppeal(appealId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { outcome: 'upheld' | 'reversed'; explanation: string }) =>
      apiRequest(api.moderationDecideAppeal, {
        params: { appealId },
        body: checkInput(AppealDecisionBodySchema, input),
      }),
    onSettled: (_data, error) => {
      if (!(error instanceof InputProblem)) void refreshModeration(queryClient);
    },
  });
}

/** The audit log, newest first, a page at a time ("Load more" reads the page before the last event). */
export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: [endpointUrl(api.adminAuditLog, {}), 'pages'] as const,
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam, signal }) => apiRequest(api.adminAuditLog, { query: { before: pageParam } }, { signal }),
    getNextPageParam: (page) => page.nextBefore ?? undefined,
  });
}
