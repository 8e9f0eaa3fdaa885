import { Redis } from 'ioredis';
import { JobQueue } from '../jobs/job-queue';
import { initOrm, migrate } from './orm';
import { seedDemoData } from './seeders/demo-seed';

/**
 * The one-shot step before servers start: apply migrations, then seed demo data into an empty
 * database (and queue their avatars). Never run by the servers themselves, so replicas cannot race.
 */
export async function prepareDatabase(options: {
  databaseUrl: string;
  redisUrl: string;
  seed: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const orm = await initOrm(options.databaseUrl);
  try {
    const applied = await migrate(orm);
    options.log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'Database schema is up to date');
    if (!options.seed) return;
    const created = await seedDemoData(orm.em.fork());
    if (created.length === 0) return;
    options.log(`Seeded ${created.length} demo people`);
    const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 });
    const queue = new JobQueue(redis);
    try {
      for (const userId of created) await queue.enqueue('avatarGenerate', { userId });
    } finally {
      await queue.close();
      redis.disconnect();
    }
  } finally {
    await orm.close();
  }
}
