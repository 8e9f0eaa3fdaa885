import { api } from '@shared/api';
import { AppealBodySchema, type Notice } from '@shared/schemas/moderation';
import type { QueryClient } from '@tanstack/react-query';
import { apiRequest, checkInput, endpointQuery } from '@/lib/api-client';

/** GET /api/users/:userId/notices: the statements of reasons the person has not marked as seen. */
export function noticesQuery(userId: number) {
  return endpointQuery(api.myNotices, { params: { userId } });
}

/** A notice that arrived live ('moderation:notice') joins the cached list, once. */
export function addNotice(queryClient: QueryClient, userId: number, notice: Notice): void {
  queryClient.setQueryData(noticesQuery(userId).queryKey, (current) => {
    const notices = current?.notices ?? [];
    return notices.some((n) => n.id === notice.id) ? current : { notices: [...notices, notice] };
  });
}

/** Takes a notice out of the cached list (seen, or its appeal changed what it says). */
export function dropNotice(queryClient: QueryClient, userId: number, noticeId: number): void {
  queryClient.setQueryData(noticesQuery(userId).queryKey, (current) =>
    current ? { notices: current.notices.filter((n) => n.id !== noticeId) } : current,
  );
}

/** POST /api/users/:userId/notices/:noticeId/seen. */
export function markNoticeSeen(userId: number, noticeId: number) {
  return apiRequest(api.noticeSeen, { params: { userId, noticeId } });
}

/** POST /api/users/:userId/appeals: one appeal of the action a notice is about. */
export async function appealNotice(userId: number, notice: Notice, text: string): Promise<void> {
  const body = checkInput(AppealBodySchema, { actionId: notice.action.id, text });
  await apiRequest(api.appealAction, { params: { userId }, body });
}
