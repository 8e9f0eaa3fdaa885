import type { Intent } from './constants';
import type { JobState } from './schemas/jobs';
import type { MatchView } from './schemas/matches';
import type { SelfUser } from './schemas/user';

/** Rooms: every socket of a user joins userRoom, so all their tabs receive the same events. */
export const rooms = {
  user: (userId: number) => `user:${userId}`,
  match: (matchId: number) => `match:${matchId}`,
  /** One room per session, so revoking a token can disconnect exactly its sockets. */
  session: (sessionId: number) => `session:${sessionId}`,
} as const;

export interface JobStatusEvent {
  jobId: string;
  name: string;
  state: JobState;
  progress: number;
  error?: string;
}

export interface BadgeCounts {
  feed: Record<Intent, number>;
  unreadMatches: Record<Intent, number>;
}

export interface ServerToClientEvents {
  'user:updated': (user: SelfUser) => void;
  'job:status': (event: JobStatusEvent) => void;
  'badges:update': (counts: BadgeCounts) => void;
  /** A like made this pair mutual; each person receives the match as they see it. */
  'match:new': (match: MatchView) => void;
  /** The match is gone for this person (unmatch or block by either side). */
  'match:removed': (event: { matchId: number; intent: Intent }) => void;
  /** Sent just before the server disconnects a socket whose session ended. */
  'session:ended': (reason: 'logout' | 'expired') => void;
}

export interface ClientToServerEvents {
  /** Liveness check with an ack; answers the server time. */
  ping: (ack: (reply: { serverTime: string }) => void) => void;
}

/** Data the server keeps on each socket after authentication. */
export interface SocketData {
  userId: number;
  sessionId: number;
}
