import { isJobFinished, type ServerEventName, type ServerEventPayload } from '@shared/events';
import type { JobName } from '@shared/jobs';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { feedCountsQuery, invalidateAfterMatch } from '@/features/feed/feed-queries';
import { announceMutualMatch } from '@/features/feed/mutual-match-toast';
import { addMatchToList, forgetMatch } from '@/features/matches/match-queries';
import { libraryQuery } from '@/features/podcasts/podcast-queries';
import { spotifyStatusQuery } from '@/features/spotify/spotify-queries';
import { setBadges } from '@/lib/badges';
import { endSession } from '@/lib/session';
import { onServerEvent, useSocketConnection } from '@/lib/socket';
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

/** What a finished (completed or failed) job makes stale. Screens may still follow jobs for toasts. */
const afterJob: { [N in JobName]: Invalidate } = {
  // The worker sends 'user:updated' with the new picture: nothing else changes.
  'avatar.generate': () => {},
  // New names, artwork and episodes; a Spotify sync also changes the connection status.
  'podcasts.sync': invalidate(libraryQuery, spotifyStatusQuery),
  'matches.recompute': invalidate(feedCountsQuery),
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
  // Every tab of both people shows the intent's toast once per match (the like's answer may have already).
  'match:new': (match, { queryClient, userId }) => {
    announceMutualMatch(match);
    addMatchToList(queryClient, userId, match);
    void invalidateAfterMatch(queryClient, userId);
  },
  // Also while another screen is open, so Matches never shows a match that is gone. The feed
  // lists keep their position; counts and the other lists are refetched.
  'match:removed': ({ matchId }, { queryClient, userId }) => {
    forgetMatch(queryClient, userId, matchId);
    void invalidateAfterMatch(queryClient, userId, { feed: false });
  },
  'job:status': (event, ctx) => {
    if (isJobFinished(event)) afterJob[event.name](ctx);
  },
  'session:ended': (_reason, { endSession }) => endSession(),
};

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
  useSocketConnection(userId, end);
  return null;
}
