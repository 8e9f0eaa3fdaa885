// The chat's safety nudge on the server (docs/chat.md, "The safety nudge"): the server decides
// `flagged` with the shared word check, stores it, and every view of the message carries it (the
// send's answer, 'message:new' at both people's tabs, history pages, catch-up). A flagged message is
// delivered like any other: the word list never blocks.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Message } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import {
  catchUp,
  EventLog,
  emitRaw,
  listPath,
  mutualPair,
  type Person,
  sendRest,
  sendSocket,
} from '../../test/chat-flow';
import { startTestServer, type TestServer } from '../../test/harness';

const HURTFUL = 'you are a f u c k i n g idiot';
const NORMAL = 'Have you heard the new Serial season? A classic.';

describe('chat safety nudge', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  const storedFlags = async (matchId: number) =>
    (
      await sql<{ seq: number; flagged: boolean }>(
        em.fork(),
        'select seq, flagged from messages where match_id = ? order by seq',
        [matchId],
      )
    ).map((row) => [row.seq, row.flagged]);

  const history = async (viewer: Person, matchId: number) =>
    ((await server.call('GET', listPath(viewer, matchId), { token: viewer.token })).json as Message[]).map((m) => [
      m.seq,
      m.flagged,
    ]);

  it('a flagged message is stored and delivered flagged to both people, over REST and socket; a normal one is not', async () => {
    const { a, b, matchId } = await mutualPair(server);
    const [aSocket, bSocket] = [await server.socket(a.token), await server.socket(b.token)];
    const [aLog, bLog] = [new EventLog(aSocket, ['message:new']), new EventLog(bSocket, ['message:new'])];

    const clientId = randomUUID();
    const flaggedRest = await sendRest(server, a, matchId, HURTFUL, clientId);
    expect(flaggedRest.status, flaggedRest.text).toBe(201);
    expect(flaggedRest.json).toMatchObject({ seq: 1, content: HURTFUL, flagged: true });
    const normalRest = await sendRest(server, a, matchId, NORMAL);
    expect(normalRest.json).toMatchObject({ seq: 2, flagged: false });
    const flaggedSocket = await sendSocket(bSocket, matchId, 'kys');
    expect(flaggedSocket).toMatchObject({ ok: true, data: { seq: 3, content: 'kys', flagged: true } });
    const normalSocket = await sendSocket(bSocket, matchId, 'Scunthorpe has a great podcast scene');
    expect(normalSocket).toMatchObject({ ok: true, data: { seq: 4, flagged: false } });

    const expected = [
      [1, true],
      [2, false],
      [3, true],
      [4, false],
    ];
    expect(await storedFlags(matchId)).toEqual(expected);
    for (const log of [aLog, bLog]) {
      await log.until((l) => l.messages(matchId).length === 4, 'the four messages at both people');
      expect(log.messages(matchId).map((m) => [m.seq, m.flagged])).toEqual(expected);
    }
    expect(await history(a, matchId)).toEqual(expected);
    expect(await history(b, matchId)).toEqual(expected);
    const { messages } = await catchUp(server, b, matchId, 0);
    expect(messages.map((m) => [m.seq, m.flagged])).toEqual(expected);

    // A repeated send answers the stored message, flag included.
    const again = await sendRest(server, a, matchId, HURTFUL, clientId);
    expect(again.json).toMatchObject({ seq: 1, flagged: true });
  });

  it('the client cannot set the flag: a send naming it is refused over REST and socket', async () => {
    const { a, matchId } = await mutualPair(server);
    const socket = await server.socket(a.token);
    const rest = await server.call('POST', '/api/chat', {
      token: a.token,
      body: { matchId, senderId: a.id, content: HURTFUL, flagged: false },
    });
    expect(rest.status).toBe(400);
    const viaSocket = await emitRaw(socket, 'message:send', {
      matchId,
      content: HURTFUL,
      clientId: randomUUID(),
      flagged: false,
    });
    expect(viaSocket).toMatchObject({ ok: false, error: { status: 400 } });
    expect(await storedFlags(matchId)).toEqual([]);
  });

  it('40 flagged messages sent at once across 8 matches are all stored and delivered flagged, no 5xx', async () => {
    const pairs = await Promise.all(Array.from({ length: 8 }, () => mutualPair(server)));
    const sockets = await Promise.all(
      pairs.map(async ({ a, b }) => ({ a: await server.socket(a.token), b: await server.socket(b.token) })),
    );
    const logs = sockets.map((s) => new EventLog(s.b, ['message:new']));
    const PER_MATCH = 5;
    const sends = pairs.flatMap(({ a, matchId }, p) =>
      Array.from({ length: PER_MATCH }, (_, i) => async () => {
        const content = `${HURTFUL} ${i}`;
        if (i % 2) {
          const ack = await sendSocket(sockets[p]!.a, matchId, content);
          return ack.ok ? { status: 201, message: ack.data } : { status: ack.error.status, message: undefined };
        }
        const res = await sendRest(server, a, matchId, content, randomUUID());
        return { status: res.status, message: res.json as Message };
      }),
    );
    expect(sends).toHaveLength(40);
    const answers = await Promise.all(sends.map((send) => send()));
    expect(answers.filter((x) => x.status !== 201)).toEqual([]);
    expect(answers.every((x) => x.message?.flagged === true)).toBe(true);

    for (const [p, { matchId }] of pairs.entries()) {
      expect((await storedFlags(matchId)).map(([, flagged]) => flagged)).toEqual(Array(PER_MATCH).fill(true));
      await logs[p]!.until((l) => l.messages(matchId).length === PER_MATCH, `match ${p}'s messages at the recipient`);
      expect(logs[p]!.messages(matchId).every((m) => m.flagged)).toBe(true);
    }
  });
});
