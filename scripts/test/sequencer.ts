// The order vitest starts test files in: the slowest first (by the last run's durations, or the
// largest first when there are none, as in a fresh clone), across projects. Vitest's own order runs
// one project's files before the next one's; when server and worker share one call (npm test), a
// long worker file started last would keep the cores waiting for it alone at the end.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * What the longest files took in a fresh clone's `npm test` (2026-11-27, 2 cores), for the first run,
 * when vitest has no durations of its own: by size alone, the two longest worker files (about a
 * minute each, mostly waiting) started last and ended the phase alone.
 */
const KNOWN_SECONDS: Record<string, number> = {
  'server:server/src/http/authorization.test.ts': 60,
  'worker:worker/src/handlers/demo-chat-reply.test.ts': 59,
  'server:server/src/features/matches/matches-load.test.ts': 57,
  'server:server/src/http/rate-limits.test.ts': 47,
  'worker:worker/src/handlers/video-jobs.test.ts': 41,
  'server:deploy/production-bundle.test.ts': 40,
  'faults:server/src/realtime/rolling-restart.test.ts': 77,
  'faults:worker/src/video-reliability.test.ts': 41,
  'faults:worker/src/jobs-under-faults.test.ts': 36,
  'server:server/src/features/matches/matches.test.ts': 35,
  'faults:server/src/realtime/postgres-restart.test.ts': 29,
  'server:deploy/deploy-files.test.ts': 26,
  'server:server/src/core/media/ffmpeg.test.ts': 25,
  'faults:worker/src/redis-sentinel.test.ts': 25,
  'worker:worker/src/handlers/push-send.test.ts': 24,
  'faults:worker/src/push-faults.test.ts': 20,
  'server:server/src/features/chat/chat.test.ts': 23,
  'worker:worker/src/handlers/video-metadata.test.ts': 23,
  'server:server/src/features/auth/auth.test.ts': 17,
  'worker:worker/src/videos/http-provider.test.ts': 17,
  'server:server/src/features/moderation/moderation.test.ts': 15,
  'server:server/src/features/passkeys/passkeys.test.ts': 12,
  'server:server/src/features/bluesky/bluesky.test.ts': 11,
  'server:server/src/listen-address.test.ts': 11,
  'worker:worker/src/pgbouncer.test.ts': 11,
};

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (spec: TestSpecification) => `${spec.project.name}:${path.relative(config.root, spec.moduleId)}`;
    return [...files].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      const [aRun, bRun] = [cache.getFileTestResults(key(a)), cache.getFileTestResults(key(b))];
      if (aRun && bRun) {
        if (aRun.failed !== bRun.failed) return aRun.failed ? -1 : 1;
        return bRun.duration - aRun.duration;
      }
      // Unknown to the cache: never run, or run before a test was added to it; first, the files known
      // to be long first, then larger first.
      if (aRun || bRun) return aRun ? 1 : -1;
      const known = (KNOWN_SECONDS[key(b)] ?? 0) - (KNOWN_SECONDS[key(a)] ?? 0);
      if (known !== 0) return known;
      return (cache.getFileStats(key(b))?.size ?? 0) - (cache.getFileStats(key(a))?.size ?? 0);
    });
  }
}
