import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFirst from './scripts/test/sequencer';

// Import aliases (@shared, @server, and the client's @/) are defined once, in the tsconfig files.
const resolve = { tsconfigPaths: true };

// The slow fault tests: real processes killed and restarted (servers, workers, Redis, PostgreSQL),
// each timing its own outage. A tier of their own ('faults'), two files at a time.
const FAULT_TESTS = [
  'server/src/realtime/failover.test.ts',
  'server/src/realtime/redis-restart.test.ts',
  'server/src/realtime/postgres-restart.test.ts',
  'server/src/realtime/rolling-restart.test.ts',
  'server/src/core/jobs/outbox.test.ts',
  'worker/src/video-reliability.test.ts',
  'worker/src/jobs-under-faults.test.ts',
  'worker/src/redis-sentinel.test.ts',
  'worker/src/push-faults.test.ts',
];

// Service tiers: real PostgreSQL and Redis (scripts/test/stack-setup.ts), each test file on a
// database and a Redis database of its own (scripts/test/file-setup.ts), so files run side by side.
// Most of a test's time is spent waiting (sockets, timers, the database, ffmpeg), so three files keep
// two cores busy; `npm test` runs server and worker in one call, sharing them. A test's time limit
// leaves room for the files beside it.
const services = {
  environment: 'node' as const,
  globalSetup: ['scripts/test/stack-setup.ts'],
  setupFiles: ['scripts/test/file-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 90_000,
  maxWorkers: 3,
};

// Server and worker files share their vitest worker's module instances (no isolation): importing the
// app's module graph once per worker instead of once per file saves a third of the tier's time. A
// file builds its app from its own config (the harness) and keeps no state in modules between files.
const appFiles = { ...services, isolate: false };

// Unit files (shared, client) barely wait: Vitest's default of one worker on two cores left one idle.
const UNIT_WORKERS = 2;

// One project per tier; `npx vitest run --project <name>` runs one alone.
export default defineConfig({
  resolve,
  test: {
    // Slowest files first, across projects (scripts/test/sequencer.ts).
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        resolve,
        test: { name: 'shared', include: ['shared/src/**/*.test.ts'], environment: 'node', maxWorkers: UNIT_WORKERS },
      },
      {
        resolve,
        test: {
          ...appFiles,
          name: 'server',
          // deploy/: the deployment files' checks (docker-compose.yml, Dockerfile, HAProxy).
          include: ['server/src/**/*.test.ts', 'deploy/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FAULT_TESTS],
        },
      },
      {
        resolve,
        test: {
          ...appFiles,
          name: 'worker',
          include: ['worker/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FAULT_TESTS],
        },
      },
      {
        resolve,
        test: {
          ...appFiles,
          name: 'faults',
          include: FAULT_TESTS,
          maxWorkers: 2,
        },
      },
      {
        plugins: [react()],
        resolve,
        test: {
          name: 'client',
          include: ['client/src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['client/src/test/setup.ts'],
          maxWorkers: UNIT_WORKERS,
          // A wait for the screen may take up to 5 s (asyncUtilTimeout in the setup file), so a test
          // with a few of them needs more than Vitest's 5 s default while tsc shares the machine.
          testTimeout: 15_000,
        },
      },
    ],
  },
});
