// Match and library lists are paginated with a cap (shared pageQuerySchema, docs/security.md): no
// request reads an unbounded list; walking the pages gives every item once, in the list's order.
import { PAGE_SIZES } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../core/db/sql';
import { startTestServer, type TestServer } from '../test/harness';

describe('paginated lists', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const db = () => server.running.deps.orm.em.fork();

  /** Every page of `path` (limit `limit`), in turn, until a short one. */
  async function walk(path: string, token: string, limit: number) {
    const all: { id: number }[] = [];
    for (let offset = 0; ; offset += limit) {
      const res = await server.call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}&offset=${offset}`, {
        token,
      });
      expect(res.status).toBe(200);
      all.push(...res.json);
      if (res.json.length < limit) return all;
    }
  }

  it('matches: a default page, a cap, every match once across the pages in the list order', async () => {
    const viewer = await server.login();
    const others = await Promise.all(Array.from({ length: 130 }, () => server.login()));
    await sql(
      db(),
      `insert into matches (user1_id, user2_id, intent, match_percentage, user1_liked, user2_liked, created_at, mutual_at)
       select least(?, o.id), greatest(?, o.id), 'romantic', (o.n * 7) % 101, true, true, now(), now() - make_interval(secs => o.n)
         from unnest(?::int[]) with ordinality as o(id, n)`,
      [viewer.user.id, viewer.user.id, `{${others.map((o) => o.user.id).join(',')}}`],
    );
    const base = `/api/users/${viewer.user.id}/matches?intent=romantic`;
    const first = await server.call('GET', base, { token: viewer.token });
    expect(first.json).toHaveLength(PAGE_SIZES.matches);
    const over = await server.call('GET', `${base}&limit=${PAGE_SIZES.matches * 2 + 1}`, { token: viewer.token });
    expect(over.status).toBe(400);
    expect(over.json.message).toMatch(/at most 200/);
    for (const bad of ['limit=0', 'limit=abc', 'offset=-1', 'offset=1e9']) {
      expect((await server.call('GET', `${base}&${bad}`, { token: viewer.token })).status).toBe(400);
    }

    const walked = await walk(base, viewer.token, 40);
    const ids = walked.map((m) => m.id);
    expect(ids).toHaveLength(130);
    expect(new Set(ids).size).toBe(130);
    // The same order as one big page (favourites first, then match %).
    const whole = await server.call('GET', `${base}&limit=200`, { token: viewer.token });
    expect(whole.json.map((m: { id: number }) => m.id)).toEqual(ids);
    // Someone else's list stays refused.
    expect((await server.call('GET', base, { token: others[0]?.token })).status).toBe(403);
  });

  it('library: a default page, a cap, every entry once across the pages', async () => {
    const owner = await server.login();
    const tag = `page${owner.user.id}`;
    await sql(
      db(),
      `with shows as (
         insert into podcasts (name, created_at) select 'Paged ' || ? || ' ' || n, now()
           from generate_series(1, 1100) as n returning id)
       insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, id, 'manual', id % 17, false, now() from shows`,
      [tag, owner.user.id],
    );
    const base = `/api/users/${owner.user.id}/podcasts`;
    expect((await server.call('GET', base, { token: owner.token })).json).toHaveLength(PAGE_SIZES.library);
    expect((await server.call('GET', `${base}?limit=1001`, { token: owner.token })).status).toBe(400);
    const walked = await walk(base, owner.token, 300);
    expect(walked).toHaveLength(1100);
    expect(new Set(walked.map((e) => e.id)).size).toBe(1100);
    const other = await server.login();
    expect((await server.call('GET', base, { token: other.token })).status).toBe(403);
  });
});
