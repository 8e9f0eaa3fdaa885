// Vitest setup file of the service tiers: runs before each test file, in its worker. The file gets a
// database and a Redis database of its own (server/src/test/test-stack.ts), dropped after it.
import { afterAll } from 'vitest';
import { openFileStack } from '../../server/src/test/test-stack';

const close = await openFileStack();
// Registered first, so it runs after every afterAll of the file itself (hooks unwind as a stack).
afterAll(close, 60_000);
