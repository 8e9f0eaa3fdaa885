import { TIMING } from '@shared/constants';
import type { MatchView, ReportReason } from '@shared/schemas/matches';
import { chatNotificationTag } from '@shared/schemas/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { RotateCw } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { MatchOptionsDialog, useReportUser } from '@/features/matches';
import { errorMessage, isApiError } from '@/lib/api-client';
import { matchQuery } from '@/lib/match-cache';
import { closeNotifications } from '@/lib/service-worker';
import { useSocketConnected } from '@/lib/socket';
import { toast } from '@/lib/toast';
import { ChatComposer } from './chat-composer';
import { ChatEmpty } from './chat-empty';
import { ChatHeader } from './chat-header';
import { ChatNotFound } from './chat-not-found';
import {
  type Conversation,
  conversationQuery,
  loadOlder,
  markChatOpen,
  pollQuery,
  removedQuery,
} from './conversation-cache';
import { pickIcebreaker } from './icebreaker';
import { MessageList } from './message-list';
import { useOtherTyping, usePresence, useReadReceipts, useTypingSignal } from './use-chat-live';
import { useSendMessage } from './use-send-message';

const hidden = (error: unknown) => isApiError(error, 404) || isApiError(error, 403);

function sharedPodcastsText(count: number): string {
  return `${count} shared podcast${count === 1 ? '' : 's'}`;
}

function TypingIndicator({ name }: { name: string }) {
  return (
    <p data-testid="typing-indicator" className="px-5 pb-1 text-xs text-zinc-400 italic">
      {name} is typing…
    </p>
  );
}

interface ConversationViewProps {
  userId: number;
  match: MatchView;
  conversation: Conversation | undefined;
  /** Start with an icebreaker in the input (arriving from the match moment). */
  icebreaker?: boolean;
}

/** The loaded chat: header, messages (or the empty state), typing, input and the shared-podcast footer. */
function ConversationView({ userId, match, conversation, icebreaker: startWithIcebreaker }: ConversationViewProps) {
  const queryClient = useQueryClient();
  const name = match.matchedUser.displayName;
  const [draft, setDraft] = useState(() => (startWithIcebreaker ? pickIcebreaker(match.sharedPodcasts) : ''));
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const { send, sending, error } = useSendMessage(userId, match.id);
  const typingSignal = useTypingSignal(match.id);
  const otherTyping = useOtherTyping(match.id, match.matchedUser.id);
  const online = usePresence(match.id, match.matchedUser.id);
  useReadReceipts(userId, match, conversation ? (conversation.messages.at(-1)?.seq ?? 0) : undefined);

  const [loadingOlder, setLoadingOlder] = useState(false);
  const onLoadOlder = () => {
    if (loadingOlder) return;
    setLoadingOlder(true);
    loadOlder(queryClient, userId, match.id)
      .catch(() => {})
      .finally(() => setLoadingOlder(false));
  };

  const changeDraft = (value: string) => {
    setDraft(value);
    typingSignal.onDraftChange(value);
  };
  const sendDraft = (text: string) => {
    typingSignal.stop();
    return send(text);
  };
  const icebreaker = () => {
    changeDraft(pickIcebreaker(match.sharedPodcasts));
    inputRef.current?.focus();
  };

  // "Does this bother you? Report" under a flagged message: the Matches report, harassment chosen.
  const [reporting, setReporting] = useState(false);
  const report = useReportUser();
  const sendReport = (reason: ReportReason, details: string) =>
    report.mutate(
      { reportedId: match.matchedUser.id, matchId: match.id, reason, ...(details ? { details } : {}) },
      {
        onSuccess: () => {
          setReporting(false);
          toast({ title: 'Report sent', description: 'Thank you. Our team will review it.' });
        },
        onError: (failure) =>
          toast({
            variant: 'destructive',
            title: 'Could not send report',
            description: errorMessage(failure, 'Please try again.'),
          }),
      },
    );

  const empty = conversation && conversation.messages.length === 0 && conversation.pending.length === 0;
  return (
    <main
      data-testid="chat-screen"
      className="mx-auto flex h-[calc(100dvh-var(--app-status-height,0px))] w-full max-w-md flex-col"
    >
      <ChatHeader match={match} online={online} />
      {!conversation ? (
        <div role="status" className="grid flex-1 place-items-center text-sm text-zinc-400">
          <Spinner className="size-6" />
          <span className="sr-only">Loading messages</span>
        </div>
      ) : empty ? (
        <div className="min-h-0 flex-1 overflow-y-auto">
          <ChatEmpty name={name} onIcebreaker={icebreaker} />
        </div>
      ) : (
        <MessageList
          userId={userId}
          conversation={conversation}
          otherReadSeq={match.otherReadSeq}
          name={name}
          loadingOlder={loadingOlder}
          onLoadOlder={onLoadOlder}
          onReport={() => setReporting(true)}
        />
      )}
      <div aria-live="polite">{otherTyping ? <TypingIndicator name={name} /> : null}</div>
      <div className="border-t border-white/10 px-4 pt-3 pb-2">
        <ChatComposer
          value={draft}
          onChange={changeDraft}
          onSend={sendDraft}
          sending={sending}
          error={error}
          inputRef={inputRef}
        />
        <p data-testid="shared-podcasts" className="pt-2 text-center text-xs text-zinc-500">
          {sharedPodcastsText(match.sharedPodcastCount)}
        </p>
      </div>
      {reporting ? (
        <MatchOptionsDialog
          name={name}
          busy={report.isPending}
          initialStep="report"
          initialReason="harassment"
          onClose={() => setReporting(false)}
          // Opened on the report step, the dialog has no way to its menu's Unmatch and Block.
          onUnmatch={() => {}}
          onBlock={() => {}}
          onReport={sendReport}
        />
      ) : null}
    </main>
  );
}

/**
 * An open conversation is read on this device: its notifications here close when it opens and when
 * this tab comes back into view (docs/notifications.md, "What a tap opens").
 */
function useCloseChatNotifications(matchId: number): void {
  useEffect(() => {
    const tag = chatNotificationTag(matchId);
    void closeNotifications(tag);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void closeNotifications(tag);
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [matchId]);
}

function ChatLoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <main role="alert" className="grid min-h-dvh place-items-center px-6 text-center">
      <div className="grid justify-items-center gap-4">
        <p className="text-zinc-300">{errorMessage(error, 'Could not load this conversation.')}</p>
        <Button variant="outline" onClick={onRetry}>
          <RotateCw aria-hidden="true" className="size-4" />
          Try again
        </Button>
      </div>
    </main>
  );
}

/**
 * Chat (/chat/:matchId), SPEC section 2. Messages come from the query cache, which the realtime
 * bridge keeps current; while the socket is down the open chat polls every TIMING.messagePollMs.
 * A match the server does not show (404), or one that ends while open, shows 'Conversation not found'.
 */
export function ChatScreen({ userId, matchId, icebreaker }: { userId: number; matchId: number; icebreaker?: boolean }) {
  const removedAs = useQuery(removedQuery(matchId)).data;
  const removed = removedAs !== undefined;
  const match = useQuery({ ...matchQuery(matchId), enabled: !removed });
  const conversation = useQuery({ ...conversationQuery(userId, matchId), enabled: !removed });
  const connected = useSocketConnected();
  useQuery({
    ...pollQuery(userId, matchId),
    enabled: !removed && !connected && conversation.isSuccess,
    refetchInterval: TIMING.messagePollMs,
  });
  useEffect(() => markChatOpen(matchId), [matchId]);
  useCloseChatNotifications(matchId);

  if (removedAs === 'accountDeleted' || removedAs === 'suspended') return <ChatNotFound reason={removedAs} />;
  if (removed || hidden(match.error) || hidden(conversation.error)) return <ChatNotFound />;
  const failed = match.error ?? conversation.error;
  if (failed)
    return (
      <ChatLoadError
        error={failed}
        onRetry={() => {
          if (match.isError) void match.refetch();
          if (conversation.isError) void conversation.refetch();
        }}
      />
    );
  if (!match.data)
    return (
      <main role="status" className="grid min-h-dvh place-items-center text-sm text-zinc-400">
        Loading...
      </main>
    );
  return (
    <ConversationView userId={userId} match={match.data} conversation={conversation.data} icebreaker={icebreaker} />
  );
}
