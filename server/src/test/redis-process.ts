// A redis-server of a test's own, to stop and start for real (fault tests: the job outbox, video
// jobs under a Redis restart). No persistence unless a directory is given: then an append-only file
// written on every command (as a production Redis for BullMQ should be), so a restart keeps the queues.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { until } from './harness';

/** Starts redis-server on `port` (its data in `dataDir`, if given) and resolves once it answers PING. */
export async function startRedisProcess(port: number, dataDir?: string): Promise<ChildProcess> {
  const persistence = dataDir
    ? ['--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  const child = spawn('redis-server', ['--port', String(port), '--save', '', ...persistence], {
    stdio: 'ignore',
  });
  await waitForRedis(port);
  return child;
}

/** Resolves once a Redis (or sentinel) on `port` answers PING. */
export async function waitForRedis(port: number): Promise<void> {
  const probe = new Redis(port, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  probe.on('error', () => undefined);
  try {
    await until(
      () =>
        probe.ping().then(
          () => true,
          () => false,
        ),
      `redis on ${port}`,
      10_000,
    );
  } finally {
    probe.disconnect();
  }
}

/** Kills it at once (SIGKILL: a crash, not a shutdown) and waits for the exit. */
export async function killRedisProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGKILL');
  await exit;
}

/** Stops it as an orchestrator would (SIGTERM: Redis flushes its files and exits) and waits. */
export async function stopRedisProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  await exit;
}
