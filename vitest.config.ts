import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const alias = {
  '@shared': fileURLToPath(new URL('./shared/src', import.meta.url)),
  '@': fileURLToPath(new URL('./client/src', import.meta.url)),
};

// One project per tier; `npx vitest run --project <name>` runs one alone.
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      { resolve: { alias }, test: { name: 'shared', include: ['shared/src/**/*.test.ts'], environment: 'node' } },
      {
        resolve: { alias },
        test: {
          name: 'server',
          include: ['server/src/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['scripts/test/stack-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
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
        resolve: { alias },
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
