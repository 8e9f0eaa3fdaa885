// The shared catalog against poisoning (docs/podcasts.md, "Who sees a new show" and "Limits"): a show
// an upload creates stays invisible to others until its feed was read, repeated uploads queue each
// feed once, a person adds at most LIBRARY_LIMITS.newCatalogShowsPerDay new shows a day and keeps at
// most LIBRARY_LIMITS.libraryMaxEntries, racing uploads included, and feeds only on ports 80/443.
import { LIBRARY_LIMITS, type LoginResponse, QUEUES } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { startTestServer, type TestServer } from '../../test/harness';
import { testRedisUrl } from '../../test/test-stack';

function opml(feeds: { url: string; title: string }[]): string {
  const outlines = feeds.map((f) => `<outline type="rss" text="${f.title}" xmlUrl="${f.url}"/>`).join('\n');
  return `<opml version="2.0"><body>${outlines}</body></opml>`;
}

/** `count` feeds nobody has imported yet, on a host of this test's own. */
function newFeeds(tag: string, count: number, from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    url: `https://feeds-${tag}.example.com/show-${from + i}.xml`,
    title: `Show ${tag} ${from + i}`,
  }));
}

describe('the shared catalog under attack', () => {
  let server: TestServer;
  let redis: Redis;
  let syncQueue: Queue;

  beforeAll(async () => {
    server = await startTestServer();
    redis = new Redis(testRedisUrl());
    syncQueue = new Queue(QUEUES.sync, { connection: redis });
  });
  afterAll(async () => {
    await syncQueue?.close();
    redis?.disconnect();
    await server?.close();
  });

  const db = () => server.running.deps.orm.em.fork();

  async function upload(person: LoginResponse, content: string) {
    const form = new FormData();
    form.append('opml', new Blob([content]), 'subscriptions.opml');
    const res = await fetch(`${server.url}/api/users/${person.user.id}/podcasts/opml`, {
      method: 'POST',
      headers: { authorization: `Bearer ${person.token}` },
      body: form,
    });
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
    return { status: res.status, json: (await res.json()) as any };
  }

  const search = async (person: LoginResponse, q: string) =>
    (await server.call('GET', `/api/podcasts/search?q=${encodeURIComponent(q)}`, { token: person.token })).json as {
      id: number;
      name: string;
    }[];

  /** The podcast ids of every queued feed read of these people. */
  async function queuedReads(userIds: number[]): Promise<number[]> {
    const waiting = await syncQueue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'paused']);
    return waiting
      .filter((job) => job.data.source === 'rss' && userIds.includes(job.data.userId))
      .flatMap((job) => job.data.podcastIds as number[]);
  }

  it('a catalog entry from one upload stays invisible to others until its feed was read', async () => {
    const [attacker, other] = [await server.login(), await server.login()];
    const title = `FREE CRYPTO at evil ${attacker.user.id}`;
    const res = await upload(attacker, opml([{ url: `https://evil-${attacker.user.id}.example.com/feed.xml`, title }]));
    expect(res.json).toMatchObject({ added: 1 });
    // The importer sees the entry in their library and in search; nobody else does.
    const [row] = await sql<{ id: number; verified_at: Date | null; added_by: number }>(
      db(),
      'select id, verified_at, added_by from podcasts where name = ?',
      [title],
    );
    expect(row).toMatchObject({ verified_at: null, added_by: attacker.user.id });
    expect((await search(attacker, title)).map((p) => p.id)).toContain(row?.id);
    expect(await search(other, title)).toEqual([]);
    // Nor can anyone add it by its id.
    const added = await server.call('POST', `/api/users/${other.user.id}/podcasts`, {
      token: other.token,
      body: { podcastId: row?.id },
    });
    expect(added.status).toBe(404);

    // Once the worker has read the feed (it then names the row from the feed), everyone may see it.
    await sql(db(), 'update podcasts set verified_at = now(), name = ? where id = ?', ['Real Show', row?.id]);
    expect((await search(other, 'Real Show')).map((p) => p.id)).toContain(row?.id);
  });

  it('shows an upload created never reach another person as shared podcasts until read', async () => {
    const [a, b] = [await server.login(), await server.login()];
    const feed = { url: `https://shared-${a.user.id}.example.com/feed.xml`, title: `Planted ${a.user.id}` };
    await upload(a, opml([feed]));
    await upload(b, opml([feed]));
    const details = await server.call('GET', `/api/users/${a.user.id}/profile-details?intent=romantic`, {
      token: b.token,
    });
    // Profile details of someone b may not see answer 404; either way no planted title leaks.
    expect(details.text).not.toContain(feed.title);
    const own = await server.call('GET', `/api/users/${a.user.id}/profile-details`, { token: a.token });
    expect(own.status).toBe(200);
    expect(own.text).toContain(feed.title);
  });

  it('a repeated OPML upload, and the same file from many people at once, queue each feed once', async () => {
    const people = await Promise.all(Array.from({ length: 6 }, () => server.login()));
    const file = opml(newFeeds(`dup${people[0]?.user.id}`, 120));
    const first = await upload(people[0] as LoginResponse, file);
    expect(first.json.added).toBe(120);
    const again = await upload(people[0] as LoginResponse, file);
    expect(again.json).toMatchObject({ added: 0, alreadyInLibrary: 120, jobIds: [] });
    // Everyone else uploads the same file at the same moment.
    const results = await Promise.all(people.slice(1).map((p) => upload(p, file)));
    expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    const reads = await queuedReads(people.map((p) => p.user.id));
    expect(reads).toHaveLength(120);
    expect(new Set(reads).size).toBe(120);
  });

  it(`adds at most ${LIBRARY_LIMITS.newCatalogShowsPerDay} new shows a day per person, racing uploads included`, async () => {
    const [a, b] = [await server.login(), await server.login()];
    // 24 uploads of 25 new feeds each per person (600 > the quota), 48 requests at once.
    const batches = (person: LoginResponse) =>
      Array.from({ length: 24 }, (_, i) => upload(person, opml(newFeeds(`q${person.user.id}`, 25, i * 25))));
    const results = await Promise.all([...batches(a), ...batches(b)]);
    expect(results.every((r) => r.status === 202)).toBe(true);
    for (const person of [a, b]) {
      const [row] = await sql<{ n: number }>(db(), 'select count(*)::int as n from podcasts where added_by = ?', [
        person.user.id,
      ]);
      expect(row?.n).toBe(LIBRARY_LIMITS.newCatalogShowsPerDay);
    }
    const notAdded = results.reduce((n, r) => n + r.json.notAdded, 0);
    expect(notAdded).toBe(2 * (600 - LIBRARY_LIMITS.newCatalogShowsPerDay));
    const refused = results.find((r) => r.json.notAdded > 0);
    expect(refused?.json.limitNote).toMatch(/shows new to PodMatch can be added per day/);
    // Shows already in the catalog still go in: the quota is about new catalog rows only.
    const known = await upload(a, opml(newFeeds(`q${b.user.id}`, 3)));
    expect(known.json).toMatchObject({ added: 3, notAdded: 0, limitNote: null });
  });

  it(`keeps at most ${LIBRARY_LIMITS.libraryMaxEntries} podcasts in one library`, async () => {
    const person = await server.login();
    const em = db();
    const tag = `lib${person.user.id}`;
    // A library one short of full, straight into the database.
    await sql(
      em,
      `with shows as (
         insert into podcasts (name, feed_url, created_at)
         select 'Full ' || ? || ' ' || n, 'https://full-' || ? || '.example.com/' || n || '.xml', now()
           from generate_series(1, ?) as n returning id)
       insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, id, 'manual', 0, false, now() from shows`,
      [tag, tag, LIBRARY_LIMITS.libraryMaxEntries - 1, person.user.id],
    );
    const res = await upload(person, opml(newFeeds(tag, 5)));
    expect(res.json).toMatchObject({ added: 1, notAdded: 4 });
    expect(res.json.limitNote).toMatch(/at most 2000 podcasts/);
    const [count] = await sql<{ n: number }>(em, 'select count(*)::int as n from user_podcasts where user_id = ?', [
      person.user.id,
    ]);
    expect(count?.n).toBe(LIBRARY_LIMITS.libraryMaxEntries);
  });

  it('a full library refuses a podcast added by hand with a clear 409', async () => {
    const person = await server.login();
    const tag = `hand${person.user.id}`;
    await sql(
      db(),
      `with shows as (
         insert into podcasts (name, created_at) select 'Hand ' || ? || ' ' || n, now()
           from generate_series(1, ?) as n returning id)
       insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, id, 'manual', 0, false, now() from shows`,
      [tag, LIBRARY_LIMITS.libraryMaxEntries, person.user.id],
    );
    const [extra] = await sql<{ id: number }>(
      db(),
      `insert into podcasts (name, created_at) values (?, now()) returning id`,
      [`Extra ${tag}`],
    );
    const res = await server.call('POST', `/api/users/${person.user.id}/podcasts`, {
      token: person.token,
      body: { podcastId: extra?.id },
    });
    expect(res.status).toBe(409);
    expect(res.json.message).toMatch(/holds the most podcasts it can \(2000\)/);
  });

  it('takes feeds only on ports 80 and 443', async () => {
    const person = await server.login();
    const res = await upload(
      person,
      opml([
        { url: `https://port-${person.user.id}.example.com:8443/a.xml`, title: 'Odd port' },
        { url: `http://port-${person.user.id}.example.com:6379/b.xml`, title: 'Redis port' },
        { url: `https://port-${person.user.id}.example.com:443/c.xml`, title: 'Standard port' },
      ]),
    );
    expect(res.json).toMatchObject({ feeds: 1, skipped: 2, added: 1 });
  });
});
