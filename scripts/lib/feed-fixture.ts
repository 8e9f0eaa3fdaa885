// Puts people in each other's feeds, as the precompute would after they listed a show in common:
// a like or pass may only target someone in the liker's feed (docs/auth.md, "Likes and passes").
// For tests and benchmarks that need many pairs ready to like each other.
import pg from 'pg';

/** The match % the fixture stores for a pair. */
export const FIXTURE_SCORE = 80;

/**
 * Gives every pair a fresh show of their own in both libraries and stores each in the other's
 * candidate list (both directions, as recomputeUser keeps them), on the database at `databaseUrl`.
 * One short connection: fault tests stop their databases under it.
 * `markComputed: false` leaves people whose list was never computed that way (their first feed or
 * badge read computes it, and finds the same people through the shared show).
 */
export async function shareAShow(
  databaseUrl: string,
  pairs: [{ id: number }, { id: number }][],
  { markComputed = true }: { markComputed?: boolean } = {},
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const [a, b] of pairs) {
      const {
        rows: [show],
      } = await client.query<{ id: number }>(
        `insert into podcasts (name, creator, category, categories, created_at)
         values ('Shared show ' || gen_random_uuid(), 'Host', 'Comedy', '{Comedy}', now()) returning id`,
      );
      await client.query(
        `insert into user_podcasts (user_id, podcast_id, hidden, times_listened, episode_count)
         values ($1, $3, false, 3, 5), ($2, $3, false, 3, 5) on conflict do nothing`,
        [a.id, b.id, show?.id],
      );
      await client.query(
        `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids)
         values ($1, $2, $4, 0.5, array[$3::int]), ($2, $1, $4, 0.5, array[$3::int])
         on conflict (user_id, candidate_id) do update set score = excluded.score,
           shared_podcast_ids = excluded.shared_podcast_ids`,
        [a.id, b.id, show?.id, FIXTURE_SCORE],
      );
      if (!markComputed) continue;
      await client.query(
        `insert into feed_candidate_runs (user_id, computed_at) values ($1, now()), ($2, now())
         on conflict (user_id) do nothing`,
        [a.id, b.id],
      );
    }
  } finally {
    await client.end();
  }
}

/** Takes the pairs out of each other's candidate lists again (as a recompute that no longer finds them). */
export async function forgetCandidates(databaseUrl: string, pairs: [{ id: number }, { id: number }][]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const [a, b] of pairs) {
      await client.query(
        'delete from feed_candidates where (user_id = $1 and candidate_id = $2) or (user_id = $2 and candidate_id = $1)',
        [a.id, b.id],
      );
    }
  } finally {
    await client.end();
  }
}
