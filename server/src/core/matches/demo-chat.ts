// Demo people answer chat messages (docs/matches.md, "Demo people"): scripted lines, in character,
// naming a show the two share, after a pause with the typing indicator first; after a few answers
// they say goodbye. Only ever for a match with a demo person (the `demo.chatReply` job is staged by
// the chat send for those alone, and this checks it again).
import type { EntityManager } from '@mikro-orm/postgresql';
import { displayName, isMessageFlagged, type Message } from '@shared/index';
import { blockedEitherWay, sql } from '../db/sql';
import type { Publisher } from '../realtime/publisher';
import { unreadMatchCounts } from './decide';

/** How many times a demo person answers in one match; the last answer is the goodbye. */
export const DEMO_CHAT_ANSWERS = 3;

/** The pause before a demo person starts typing (the job's delay), in ms. */
export const DEMO_CHAT_THINKING_MS = { min: 1000, max: 3000 };

/** How long the typing indicator shows before the answer: longer for longer lines, within bounds. */
export const typingMs = (text: string) => Math.min(4000, Math.max(1200, text.length * 25));

/**
 * The demo person's `answer`-th line (0-based) to `name`, naming the shows they share (best first;
 * none: a line without a show). The last of DEMO_CHAT_ANSWERS says goodbye and says what they are.
 */
export function demoChatLine(answer: number, name: string, shows: readonly string[]): string {
  const [first, second] = shows;
  if (answer >= DEMO_CHAT_ANSWERS - 1) {
    return `It was lovely chatting, ${name}! I'm one of PodMatch's demo people, so this is where I say goodbye. The real people in your feed are a message away. Take care!`;
  }
  if (answer === 0) {
    return first
      ? `Hi ${name}! Another ${first} listener, I love it. What got you into it?`
      : `Hi ${name}! Lovely to match with you. What have you been listening to lately?`;
  }
  return second
    ? `Ha, same here. We both have ${second} too, so you clearly have taste. What's the best episode you've heard this year?`
    : `Ha, same here. I always have a podcast on when I walk. What's the best episode you've heard this year?`;
}

interface ChatState {
  human_id: number;
  human_name: string;
  demo_answers: number;
  last_sender: number | null;
}

/**
 * Answers the newest message of `matchId` as demo person `demoId`, if it is the other person's and
 * the demo person has answers left: presence and typing first, `pause(typingMs)`, then the message,
 * stored like any other (one transaction, next seq) and sent to both people. Nothing for a match
 * that is not a live mutual match with a demo person, or blocked either way.
 */
export async function answerChat(
  em: EntityManager,
  publisher: Publisher,
  { matchId, demoId }: { matchId: number; demoId: number },
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<{ replied: boolean }> {
  const [state] = await sql<ChatState>(
    em,
    `select h.id as human_id, coalesce(nullif(trim(h.display_name), ''), h.username) as human_name,
            (select count(*)::int from messages where match_id = m.id and sender_id = d.id) as demo_answers,
            (select sender_id from messages where match_id = m.id order by seq desc limit 1) as last_sender
       from matches m
       join users d on d.id = ? and d.is_demo and d.id in (m.user1_id, m.user2_id)
       join users h on h.id = case when m.user1_id = d.id then m.user2_id else m.user1_id end and not h.is_demo
      where m.id = ? and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
    [demoId, matchId],
  );
  if (!state || state.last_sender !== state.human_id || state.demo_answers >= DEMO_CHAT_ANSWERS) {
    return { replied: false };
  }
  const shows = (
    await sql<{ name: string }>(
      em,
      `select p.name from user_podcasts a
         join user_podcasts b on b.podcast_id = a.podcast_id and b.user_id = ? and not b.hidden
         join podcasts p on p.id = a.podcast_id
        where a.user_id = ? and not a.hidden
        order by a.times_listened desc, p.name limit 2`,
      [state.human_id, demoId],
    )
  ).map((row) => row.name);
  const text = demoChatLine(state.demo_answers, displayName(state.human_name), shows);

  const human = state.human_id;
  publisher.emit('presence', { userId: demoId, online: true }, { partnerIds: [human] });
  publisher.emit('typing', { matchId, userId: demoId, typing: true }, { recipientId: human });
  await pause(typingMs(text));

  // A scripted line is checked like any sent text (docs/chat.md, "The safety nudge").
  const flagged = isMessageFlagged(text);
  const [stored] = await sql<{ outcome: string; id: number; seq: number; created_at: Date | string }>(
    em,
    'select outcome, id, seq, created_at from chat_store_message(?, ?, ?, null, ?)',
    [matchId, demoId, text, flagged],
  );
  if (stored?.outcome !== 'created') {
    publisher.emit('typing', { matchId, userId: demoId, typing: false }, { recipientId: human });
    return { replied: false };
  }
  const message: Message = {
    id: stored.id,
    matchId,
    senderId: demoId,
    content: text,
    seq: stored.seq,
    clientId: null,
    flagged,
    createdAt: new Date(stored.created_at).toISOString(),
  };
  publisher.emit('message:new', message, { senderId: demoId, recipientId: human });
  publisher.emit('badges:unread', { unreadMatches: await unreadMatchCounts(em, human) }, { userId: human });
  if (state.demo_answers + 1 >= DEMO_CHAT_ANSWERS) {
    publisher.emit('presence', { userId: demoId, online: false }, { partnerIds: [human] });
  }
  return { replied: true };
}
