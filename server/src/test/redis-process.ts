// A redis-server of a test's own, to stop and start for real (fault tests: the job outbox, video
// jobs under a Redis restart). No persistence: a restart empties it.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { until } from './harness';

/** Starts redis-server on `port` and resolves once it answers PING. */
export async function startRedisProcess(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const probe = new Redis(port, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  probe.on('error', () => undefined);
  try {
    await until(
      () =>
        probe.ping().then(
          () => true,
          () => false,
        ),
      'redis up',
      10_000,
    );
  } finally {
    probe.disconnect();
  }
  return child;
}

/** Kills it at once (SIGKILL: a crash, not a shutdown) and waits for the exit. */
export async function killRedisProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGKILL');
  await exit;
}
