// Backups (docs/operations.md, "Backups"): `npm run backup` of a running instance, then
// `npm run restore` into a fresh database and an empty media directory, and the app started on those
// serves the same people, match, messages, picture and video intro to the same signed-in people.
// PostgreSQL here is Debian's packaged server, whose pg_dump matches it (server/src/test/debian-postgres.ts).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTool } from '../scripts/lib/backup';
import { prepareDatabase } from '../server/src/core/db/prepare-database';
import { listPath, mutualPair, sendRest } from '../server/src/test/chat-flow';
import { type DebianPostgres, startDebianPostgres } from '../server/src/test/debian-postgres';
import { startTestServer, type TestServer } from '../server/src/test/harness';
import { testRedisUrl } from '../server/src/test/test-stack';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `npm run <script>` as an operator would: its own process, settings from the environment. */
function npmScript(script: 'backup' | 'restore', args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('backup and restore', () => {
  let cluster: DebianPostgres;
  let work: string;
  let databaseUrl: string;
  let server: TestServer | undefined;

  beforeAll(async () => {
    cluster = await startDebianPostgres();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-backup-test-'));
    databaseUrl = await cluster.createDatabase('podmatch');
    await prepareDatabase({ databaseUrl, redisUrl: testRedisUrl(), seed: false, log: () => {} });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await cluster?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('round-trips people, a match, messages, a picture and a video into a fresh database and media directory that the app then serves', async () => {
    const mediaDir = path.join(work, 'media');
    server = await startTestServer({ DATABASE_URL: databaseUrl, MEDIA_DIR: mediaDir });
    const { a, b, matchId } = await mutualPair(server, databaseUrl);
    for (const [i, from] of [a, b, a].entries()) {
      const sent = await sendRest(server, from, matchId, `backup message ${i}`);
      expect(sent.status, sent.text).toBe(201);
    }
    const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#c0392b' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('profilePicture', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'me.jpg');
    const uploaded = await server.call('POST', `/api/users/${a.id}/profile-picture`, { token: a.token, form });
    expect(uploaded.status, uploaded.text).toBe(200);
    // A finished video intro: a real MP4 and poster in the store, and its row.
    fs.mkdirSync(path.join(mediaDir, 'videos'), { recursive: true });
    const made = spawnSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=64x64:rate=10',
      '-t',
      '1',
      '-pix_fmt',
      'yuv420p',
      path.join(mediaDir, 'videos', 'backup_intro.mp4'),
    ]);
    expect(made.status, made.stderr?.toString()).toBe(0);
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2980b9' } })
      .jpeg()
      .toFile(path.join(mediaDir, 'videos', 'backup_poster.jpg'));
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(
      `insert into video_intros (id, user_id, intent, source, status, video_key, poster_key, created_at, updated_at)
       values (gen_random_uuid(), $1, 'romantic', 'upload', 'completed', 'videos/backup_intro.mp4', 'videos/backup_poster.jpg', now(), now())`,
      [b.id],
    );
    await client.end();

    /** What each person sees of themselves and of their conversation, and the bytes of their media. */
    const seen = async (on: TestServer) => {
      const view = async (person: typeof a) => {
        const exported = await on.call('GET', `/api/users/${person.id}/export`, { token: person.token });
        expect(exported.status, exported.text).toBe(200);
        const { exportedAt: _, ...data } = exported.json;
        const chat = await on.call('GET', listPath(person, matchId), { token: person.token });
        expect(chat.status, chat.text).toBe(200);
        return { data, chat: chat.json };
      };
      const media = async (url: string) => {
        const res = await fetch(`${on.url}${url}`);
        expect(res.status, url).toBe(200);
        return Buffer.from(await res.arrayBuffer()).toString('base64');
      };
      const [ofA, ofB] = [await view(a), await view(b)];
      const picture = ofA.data.account.profilePicture as string;
      const video = ofB.data.videoProjects[0];
      return {
        ofA,
        ofB,
        picture: await media(picture),
        video: await media(video.videoUrl),
        poster: await media(video.posterUrl),
      };
    };
    const before = await seen(server);
    expect(before.ofA.chat.map((m: { content: string }) => m.content)).toEqual([
      'backup message 0',
      'backup message 1',
      'backup message 2',
    ]);

    const backupDir = path.join(work, 'backup');
    const backedUp = await npmScript('backup', [backupDir], { DATABASE_URL: databaseUrl, MEDIA_DIR: mediaDir });
    expect(backedUp.code, backedUp.output).toBe(0);
    expect(backedUp.output).toContain(`Backup written to ${backupDir}`);
    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    // The picture in its sizes, the video and its poster, and the people's generated portraits if any.
    expect(manifest.media.files).toBeGreaterThanOrEqual(3);
    expect(manifest.database.serverVersion).toMatch(new RegExp(`^${cluster.version}\\.`));
    await server.close();
    server = undefined;

    const restoredUrl = await cluster.createDatabase('podmatch_restored');
    const restoredMedia = path.join(work, 'restored-media');
    const restored = await npmScript('restore', [backupDir], { DATABASE_URL: restoredUrl, MEDIA_DIR: restoredMedia });
    expect(restored.code, restored.output).toBe(0);
    expect(restored.output).toMatch(/Restored \d+ tables and \d+ media files/);

    server = await startTestServer({ DATABASE_URL: restoredUrl, MEDIA_DIR: restoredMedia });
    const after = await seen(server);
    expect(after).toEqual(before);
    // The same sessions still work: signed in before the backup, they send after the restore.
    const next = await sendRest(server, b, matchId, 'after the restore');
    expect(next.status, next.text).toBe(201);
    expect(next.json.seq).toBe(4);

    // A restore never writes over a database in use.
    const again = await npmScript('restore', [backupDir], { DATABASE_URL: restoredUrl, MEDIA_DIR: restoredMedia });
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/already has \d+ tables.*--clean/);
  }, 180_000);

  it('says which pg_dump it needs when none is new enough for the server', () => {
    expect(() => postgresTool('pg_dump', 99)).toThrow(/pg_dump 99 or newer is needed.*postgresql-client-99/);
  });
});
