import { JobQueue } from '../jobs/job-queue';
import { connectRedis, type RedisSettings, redisAt } from '../redis/redis-settings';
import { initOrm, migrate } from './orm';
import { seedDemoData } from './seeders/demo-seed';
import { sql } from './sql';

/**
 * The one-shot step before servers start: apply migrations, then seed demo data into an empty
 * database, and queue portraits for the people it seeded and for anyone still on an old letter
 * avatar. Never run by the servers themselves, so replicas cannot race.
 */
export async function prepareDatabase(options: {
  databaseUrl: string;
  /** A plain URL, or the settings with sentinels (core/redis/redis-settings.ts). */
  redisUrl: string | RedisSettings;
  seed: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const orm = await initOrm(options.databaseUrl);
  try {
    const applied = await migrate(orm);
    options.log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'Database schema is up to date');
    // Letter avatars (SVG, no longer served) from before the portraits: re-render them (docs/media.md).
    const legacy = await sql<{ id: number }>(
      orm.em.fork(),
      `select id from users where profile_picture like '/media/avatars/%.svg' order by id`,
    );
    if (legacy.length > 0) options.log(`Replacing ${legacy.length} letter avatars with portraits`);
    const created = options.seed ? await seedDemoData(orm.em.fork()) : [];
    if (created.length > 0) options.log(`Seeded ${created.length} demo people`);
    const avatars = [...legacy.map((row) => row.id), ...created];
    if (avatars.length === 0) return;
    const redis = connectRedis(typeof options.redisUrl === 'string' ? redisAt(options.redisUrl) : options.redisUrl, {
      maxRetriesPerRequest: 3,
    });
    const queue = new JobQueue(redis);
    try {
      for (const userId of avatars) await queue.enqueue('avatarGenerate', { userId });
    } finally {
      await queue.close();
      redis.disconnect();
    }
  } finally {
    await orm.close();
  }
}
