import { CONNECTION_TEXTS, TIMING } from '@shared/constants';
import { isJobFinished, type ServerEventName, type ServerEventPayload } from '@shared/events';
import type { JobName } from '@shared/jobs';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import {
  catchUpAll,
  forgetConversation,
  isChatOpen,
  isConversationRemoved,
  receiveMessage,
  setPresence,
  setTyping,
} from '@/features/chat/conversation-cache';
import { invalidateAfterMatch, invalidateFeed } from '@/features/feed/feed-queries';
import { announceMatch, MatchMomentHost } from '@/features/match-moment';
import { addMatchToList, forgetMatch } from '@/features/matches/match-queries';
import { addNotice, NoticeHost } from '@/features/notices';
import { PushFocusHost } from '@/features/notifications';
import { libraryQuery } from '@/features/podcasts/podcast-queries';
import { spotifyStatusQuery } from '@/features/spotify/spotify-queries';
import { videoIntrosQuery } from '@/features/videos/video-project';
import { badgesQuery, setBadges, setUnreadBadges } from '@/lib/badges';
import { noteMessage, noteRead } from '@/lib/match-cache';
import { endSession } from '@/lib/session';
import { onServerEvent, onSocketConnect, useSocketConnected, useSocketConnection } from '@/lib/socket';
import { noteLiveNotice, sessionEndedBy } from '@/lib/suspension';
import { toast } from '@/lib/toast';
import { userQuery } from '@/lib/user-queries';

export interface BridgeContext {
  queryClient: QueryClient;
  /** The signed-in user, whose room the events come from. */
  userId: number;
  endSession: () => void;
}

type Invalidate = (ctx: BridgeContext) => void;

const invalidate =
  (...queries: ((userId: number) => { queryKey: readonly unknown[] })[]): Invalidate =>
  ({ queryClient, userId }) => {
    for (const query of queries) void queryClient.invalidateQueries({ queryKey: query(userId).queryKey });
  };

/** A finished video job: the owner's video list (their own feed never shows them, so it stays). */
const afterVideo: Invalidate = invalidate(videoIntrosQuery);

/** What a finished (completed or failed) job makes stale. Screens may still follow jobs for toasts. */
const afterJob: { [N in JobName]: Invalidate } = {
  // The worker sends 'user:updated' with the new picture: nothing else changes.
  'avatar.generate': () => {},
  // New names, artwork and episodes; a Spotify sync also changes the connection status.
  'podcasts.sync': invalidate(libraryQuery, spotifyStatusQuery),
  // The person's feed was computed again (their library changed): its lists and counts are read
  // again; the feed keeps the card on screen where it is (FeedScreen).
  'matches.recompute': ({ queryClient, userId }) => void invalidateFeed(queryClient, userId),
  // Sends no job status (no notifyUser): a demo person's like-back arrives as 'match:new'.
  'demo.likeBack': () => {},
  // Sends no job status: a demo person's answer arrives as 'message:new'.
  'demo.chatReply': () => {},
  // Sends no job status either: the report retention sweep.
  'reports.expire': () => {},
  // Nor does a push to someone's devices while the app is closed (docs/notifications.md).
  'push.send': () => {},
  // A finished video becomes the intent's video: the owner's video list shows it, and the feed's
  // cards (which carry video urls) are read again.
  'video.render': afterVideo,
  'media.transcode': afterVideo,
};

/**
 * The one table from server events to the query cache. Payloads arrive validated (onServerEvent);
 * a new event in the shared map does not compile until it has a row here.
 */
export const cacheUpdates: { [E in ServerEventName]: (payload: ServerEventPayload<E>, ctx: BridgeContext) => void } = {
  'user:updated': (user, { queryClient }) => {
    queryClient.setQueryData(userQuery(user.id).queryKey, user);
  },
  'badges:update': (counts, { queryClient, userId }) => setBadges(queryClient, userId, counts),
  'badges:unread': ({ unreadMatches }, { queryClient, userId }) => setUnreadBadges(queryClient, userId, unreadMatches),
  // Every tab of both people shows the match moment once per match (the like's answer may have already).
  'match:new': (match, { queryClient, userId }) => {
    announceMatch(match);
    addMatchToList(queryClient, userId, match);
    void invalidateAfterMatch(queryClient, userId);
  },
  // Also while another screen is open, so Matches never shows a match that is gone (unmatched,
  // blocked, the other person left or was suspended). The feed lists keep their position; counts
  // and the other lists are refetched.
  'match:removed': ({ matchId, reason }, { queryClient, userId }) => {
    forgetMatch(queryClient, userId, matchId);
    forgetConversation(queryClient, matchId, reason ?? 'ended');
    void invalidateAfterMatch(queryClient, userId, { feed: false });
  },
  // Both people, every tab. A late one for an ended match must not bring it back.
  'message:new': (message, { queryClient, userId }) => {
    if (isConversationRemoved(queryClient, message.matchId)) return;
    receiveMessage(queryClient, userId, message);
    const fromOther = message.senderId !== userId;
    if (fromOther) setTyping(queryClient, { matchId: message.matchId, userId: message.senderId, typing: false });
    noteMessage(queryClient, userId, message, { unread: fromOther && !isChatOpen(message.matchId) });
  },
  'message:read': (event, { queryClient, userId }) => {
    if (!isConversationRemoved(queryClient, event.matchId)) noteRead(queryClient, userId, event);
  },
  typing: (event, { queryClient, userId }) => {
    if (event.userId !== userId) setTyping(queryClient, event);
  },
  presence: ({ userId, online }, { queryClient }) => setPresence(queryClient, userId, online),
  'job:status': (event, ctx) => {
    if (isJobFinished(event)) afterJob[event.name](ctx);
  },
  // A suspension or a ban: the statement of reasons that came just before stays for the login
  // screen, which shows it with its appeal form. Leaving for /login also closes an open chat.
  'session:ended': (reason, { endSession }) => {
    sessionEndedBy(reason);
    endSession();
  },
  // A moderator's decision or an appeal's outcome: shown at once in a dialog (NoticeHost).
  'moderation:notice': (event, { queryClient, userId }) => {
    noteLiveNotice(event);
    addNotice(queryClient, userId, event.notice);
  },
  // This socket alone was closed, for a newer one of the same person (too many tabs or devices);
  // the login goes on. Socket.IO does not reconnect after a disconnect by the server and nothing
  // here asks it to (two tabs would take turns closing each other): the tab keeps working by
  // polling, and a reload makes it live again.
  'connection:closed': () =>
    toast({ title: CONNECTION_TEXTS.tooManyTitle, description: CONNECTION_TEXTS.tooManyBody, duration: Infinity }),
  // The server's Redis was away: events were lost although the socket stayed up. Spread over a
  // moment, since every client of that server hears this at once.
  'realtime:resync': (_payload, ctx) => {
    setTimeout(() => {
      resync(ctx, { reconnect: true });
      void ctx.queryClient.invalidateQueries({ queryKey: badgesQuery(ctx.userId).queryKey });
    }, Math.random() * RESYNC_SPREAD_MS);
  },
};

/** Clients told to resync start within this window, not all in the same millisecond. */
export const RESYNC_SPREAD_MS = 2000;

/**
 * After a (re)connection: every loaded conversation fetches what it missed. After a reconnection the
 * match lists and entries are refetched too (unread marks, read receipts and removals while away).
 */
function resync({ queryClient, userId }: BridgeContext, { reconnect }: { reconnect: boolean }): void {
  void catchUpAll(queryClient, userId);
  if (reconnect) void invalidateAfterMatch(queryClient, userId, { feed: false });
}

function subscribe<E extends ServerEventName>(event: E, ctx: () => BridgeContext): () => void {
  return onServerEvent(event, (payload) => cacheUpdates[event](payload, ctx()));
}

function subscribeAll(ctx: () => BridgeContext): () => void {
  const unsubscribes = (Object.keys(cacheUpdates) as ServerEventName[]).map((event) => subscribe(event, ctx));
  return () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}

/**
 * Lives while a validated session exists (loaded lazily, so socket.io-client stays out of the
 * login bundle). Unmounting it, i.e. ending the session, disconnects the socket.
 */
export default function RealtimeBridge({ userId }: { userId: number }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const end = () => {
    endSession();
    navigate('/login', { replace: true });
  };
  const ctx = useRef<BridgeContext>({ queryClient, userId, endSession: end });
  useEffect(() => {
    ctx.current = { queryClient, userId, endSession: end };
  });

  // Subscribed before connecting, so the badges sent on connect are not missed.
  useEffect(() => subscribeAll(() => ctx.current), []);
  useEffect(() => {
    let connectedBefore = false;
    return onSocketConnect(() => {
      const reconnect = connectedBefore;
      connectedBefore = true;
      resync(ctx.current, { reconnect });
    });
  }, []);
  useSocketConnection(userId, end);
  useBadgePollingWhileDisconnected(queryClient, userId);
  return (
    <>
      <MatchMomentHost />
      <NoticeHost userId={userId} />
      <PushFocusHost userId={userId} />
    </>
  );
}

/** Badges arrive by socket; while it is down they are read every 5 s instead (SPEC's polling interval). */
function useBadgePollingWhileDisconnected(queryClient: QueryClient, userId: number): void {
  const connected = useSocketConnected();
  useEffect(() => {
    if (connected) return;
    const timer = setInterval(
      () => void queryClient.invalidateQueries({ queryKey: badgesQuery(userId).queryKey }),
      TIMING.messagePollMs,
    );
    return () => clearInterval(timer);
  }, [connected, queryClient, userId]);
}
