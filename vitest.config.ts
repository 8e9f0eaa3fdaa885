import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Import aliases (@shared, @server, and the client's @/) are defined once, in the tsconfig files.
const resolve = { tsconfigPaths: true };

// One project per tier; `npx vitest run --project <name>` runs one alone.
export default defineConfig({
  resolve,
  test: {
    projects: [
      { resolve, test: { name: 'shared', include: ['shared/src/**/*.test.ts'], environment: 'node' } },
      {
        resolve,
        test: {
          name: 'server',
          // deploy/: the deployment files' checks (docker-compose.yml, Dockerfile, HAProxy).
          include: ['server/src/**/*.test.ts', 'deploy/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['scripts/test/stack-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        resolve,
        test: {
          name: 'worker',
          include: ['worker/src/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['scripts/test/stack-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: false,
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
        },
      },
    ],
  },
});
