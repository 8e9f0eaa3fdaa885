// Migration20261127000000 against accounts with Spotify and Bluesky links stored the earlier way
// (columns on `users`), planted in a database of its own migrated to the migration before it: every
// link moves to user_identities with its stored values unchanged, the app reads and decrypts them
// there, the unique rules hold, and the old columns are gone (and come back on the way down).
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownDatabase } from '../../test/own-database';
import { blueskyOwner, decryptSession } from '../bluesky/bluesky-client';
import { encryptSecret } from '../crypto/secret-box';
import { toSelfUser } from '../presenters/user.presenter';
import { spotifyOwner, userTokenSource } from '../spotify/spotify-tokens';
import { UserSchema } from './entities';
import { migrationsList } from './migrations';
import { initOrm } from './orm';

const MIGRATION = 'Migration20261127000000';
const OLD_COLUMNS = [
  'spotify_id',
  'spotify_access_token',
  'spotify_refresh_token',
  'spotify_token_expiry',
  'last_spotify_sync',
  'atp_did',
  'atp_handle',
  'atp_access_token',
  'atp_refresh_token',
  'atp_refresh_token_expiry',
  'atp_oauth_session',
];

describe(`${MIGRATION}: linked identities in user_identities`, () => {
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let orm: MikroORM;
  const key = randomBytes(32);
  const ids: Record<string, number> = {};
  const expiry = new Date(Date.now() + 3600_000);
  const synced = new Date(Date.UTC(2026, 10, 20, 12));
  const session = {
    dpopJwk: { kty: 'EC', crv: 'P-256', d: 'secret-part' },
    authMethod: { method: 'none' },
    tokenSet: { iss: 'https://pds.test', sub: 'did:plc:bee', aud: 'https://pds.test', scope: 'atproto' },
  };
  /** What each person's row held before the migration. */
  const stored: Record<string, Record<string, unknown>> = {};

  const query = <T extends object = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params, 'all');
  /** Timestamps come back from raw SQL as text: compare them as instants. */
  const instants = (row: Record<string, unknown> | undefined) =>
    Object.fromEntries(
      Object.entries(row ?? {}).map(([k, v]) => [
        k,
        /(_at|_expiry|_sync)$/.test(k) && v !== null && v !== undefined ? new Date(v as string).toISOString() : v,
      ]),
    );

  async function person(name: string, columns: (id: number) => Record<string, unknown>) {
    const [row] = await query<{ id: number }>(
      `insert into users (username, password, display_name, match_preferences, sign_up_method, created_at, updated_at)
       values (?, 'x', ?, '{}', 'dev_login', now(), now()) returning id`,
      [`${name}_${randomBytes(3).toString('hex')}`, name],
    );
    const id = row?.id as number;
    ids[name] = id;
    const values = columns(id);
    stored[name] = values;
    const names = Object.keys(values);
    if (names.length === 0) return;
    await query(`update users set ${names.map((n) => `${n} = ?`).join(', ')} where id = ?`, [
      ...Object.values(values),
      id,
    ]);
  }

  beforeAll(async () => {
    database = await ownDatabase('podmatch_test_user_identities');
    orm = await initOrm(database.url);
    const position = migrationsList.findIndex((m) => m.name === MIGRATION);
    await orm.getMigrator().up({ to: migrationsList[position - 1]?.name as string });

    await person('spotify', (id) => ({
      spotify_id: 'sp-ada',
      spotify_access_token: encryptSecret('BQD-access-ada', key, spotifyOwner(id)),
      spotify_refresh_token: encryptSecret('AQD-refresh-ada', key, spotifyOwner(id)),
      spotify_token_expiry: expiry,
      last_spotify_sync: synced,
    }));
    await person('bluesky', (id) => ({
      atp_did: 'did:plc:bee',
      atp_handle: 'bee.test',
      atp_access_token: encryptSecret('atp-access-bee', key, blueskyOwner(id)),
      atp_refresh_token: encryptSecret('atp-refresh-bee', key, blueskyOwner(id)),
      atp_oauth_session: encryptSecret(JSON.stringify(session), key, blueskyOwner(id)),
      atp_refresh_token_expiry: expiry,
    }));
    // Disconnected from Spotify (the id stays for sign-in) and linked to Bluesky.
    await person('both', () => ({ spotify_id: 'sp-cy', atp_did: 'did:plc:cy', atp_handle: 'cy.test' }));
    await person('neither', () => ({}));

    await orm.getMigrator().up({ to: MIGRATION });
  });

  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('copies every link with its stored values unchanged, and nothing else', async () => {
    const rows = await query<Record<string, unknown>>(
      `select user_id, provider, subject, handle, access_token, refresh_token, session, expires_at, synced_at
         from user_identities order by user_id, provider`,
    );
    expect(rows.map(instants)).toEqual([
      {
        user_id: ids.spotify,
        provider: 'spotify',
        subject: 'sp-ada',
        handle: null,
        access_token: stored.spotify?.spotify_access_token,
        refresh_token: stored.spotify?.spotify_refresh_token,
        session: null,
        expires_at: expiry.toISOString(),
        synced_at: synced.toISOString(),
      },
      {
        user_id: ids.bluesky,
        provider: 'bluesky',
        subject: 'did:plc:bee',
        handle: 'bee.test',
        access_token: stored.bluesky?.atp_access_token,
        refresh_token: stored.bluesky?.atp_refresh_token,
        session: stored.bluesky?.atp_oauth_session,
        expires_at: expiry.toISOString(),
        synced_at: null,
      },
      expect.objectContaining({ user_id: ids.both, provider: 'bluesky', subject: 'did:plc:cy', handle: 'cy.test' }),
      expect.objectContaining({ user_id: ids.both, provider: 'spotify', subject: 'sp-cy', refresh_token: null }),
    ]);
  });

  const oldColumnsOnUsers = async () =>
    (
      await query<{ column_name: string }>(
        `select column_name from information_schema.columns
          where table_name = 'users' and column_name in (${OLD_COLUMNS.map(() => '?').join(', ')})`,
        OLD_COLUMNS,
      )
    ).map((row) => row.column_name);

  it('leaves users without the provider columns', async () => {
    expect(await oldColumnsOnUsers()).toEqual([]);
  });

  it('the app reads the moved links: what the owner sees, and the tokens decrypt as before', async () => {
    // The entities are those of the latest schema: the migrations after this one, then back to it.
    await orm.getMigrator().up();
    const em = orm.em.fork();
    const ada = await em.findOneOrFail(UserSchema, ids.spotify as number);
    expect(toSelfUser(ada)).toMatchObject({
      spotifyId: 'sp-ada',
      spotifyConnected: true,
      lastSpotifySync: synced.toISOString(),
      atpHandle: null,
    });
    const config = { accountsUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: null, tokenKey: key };
    expect(await userTokenSource(em, ada, config).accessToken()).toBe('BQD-access-ada');

    const bee = await em.findOneOrFail(UserSchema, ids.bluesky as number);
    expect(toSelfUser(bee)).toMatchObject({ spotifyId: null, spotifyConnected: false, atpHandle: 'bee.test' });
    const [row] = await query<{ user_id: number; access_token: string; refresh_token: string; session: string }>(
      `select user_id, access_token, refresh_token, session from user_identities where subject = 'did:plc:bee'`,
    );
    expect(decryptSession(row as NonNullable<typeof row>, key)).toEqual({
      ...session,
      tokenSet: { ...session.tokenSet, access_token: 'atp-access-bee', refresh_token: 'atp-refresh-bee' },
    });

    const cy = await em.findOneOrFail(UserSchema, ids.both as number);
    expect(toSelfUser(cy)).toMatchObject({ spotifyId: 'sp-cy', spotifyConnected: false, atpHandle: 'cy.test' });
    const later = migrationsList.slice(migrationsList.findIndex((m) => m.name === MIGRATION) + 1);
    for (const _ of later) await orm.getMigrator().down();
  });

  it('keeps the unique rules: one account per Spotify account or DID, one of each per account', async () => {
    const link = (userId: number | undefined, provider: string, subject: string) =>
      query(
        `insert into user_identities (user_id, provider, subject, created_at, updated_at) values (?, ?, ?, now(), now())`,
        [userId, provider, subject],
      );
    await expect(link(ids.neither, 'bluesky', 'did:plc:bee')).rejects.toThrow(
      /user_identities_provider_subject_unique/,
    );
    await expect(link(ids.neither, 'spotify', 'sp-ada')).rejects.toThrow(/user_identities_provider_subject_unique/);
    await expect(link(ids.spotify, 'spotify', 'sp-other')).rejects.toThrow(/user_identities_user_provider_unique/);
    await expect(link(ids.bluesky, 'bluesky', 'did:plc:other')).rejects.toThrow(/user_identities_user_provider_unique/);
    await expect(link(ids.neither, 'mastodon', 'x')).rejects.toThrow(/provider_check/);
    // A deleted account takes its links with it.
    await query('delete from users where id = ?', [ids.both]);
    expect(await query('select 1 from user_identities where user_id = ?', [ids.both])).toEqual([]);
  });

  it('puts the columns back on the way down, with their values', async () => {
    await orm.getMigrator().down();
    expect((await oldColumnsOnUsers()).sort()).toEqual([...OLD_COLUMNS].sort());
    const [ada] = await query<Record<string, unknown>>(`select ${OLD_COLUMNS.join(', ')} from users where id = ?`, [
      ids.spotify,
    ]);
    expect(instants(ada)).toEqual(
      instants({ ...Object.fromEntries(OLD_COLUMNS.map((c) => [c, null])), ...stored.spotify }),
    );
    const [bee] = await query<Record<string, unknown>>(`select ${OLD_COLUMNS.join(', ')} from users where id = ?`, [
      ids.bluesky,
    ]);
    expect(instants(bee)).toEqual(
      instants({ ...Object.fromEntries(OLD_COLUMNS.map((c) => [c, null])), ...stored.bluesky }),
    );
    expect(await query(`select to_regclass('user_identities') as t`)).toEqual([{ t: null }]);
  });
});
