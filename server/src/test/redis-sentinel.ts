// One Redis primary, one replica and three sentinels of a test's own (docs/operations.md, "Redis
// that survives losing its primary"), from Debian's redis-server and redis-sentinel, each with its
// data in a temp directory. The primary can be killed (SIGKILL: a crash) and started again, when
// the sentinels make it a replica of whoever they promoted.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { ensureDebianPackages, SENTINEL_TOOLS } from '../../../scripts/lib/system-packages';
import type { RedisSettings } from '../core/redis/redis-settings';
import { until } from './harness';
import { killRedisProcess, waitForRedis } from './redis-process';
import { freePort } from './spotify-flow';

const MASTER = 'podmatch';

export interface SentinelGroup {
  /** The app's settings: REDIS_URL (its host unused) and the three sentinels. */
  settings: RedisSettings;
  env: Record<string, string>;
  /** The port of the node the sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** Kills the node that is primary now (SIGKILL); answers its port. */
  killPrimary(): Promise<number>;
  /** Starts a killed node again on its port, with its data (the sentinels reconfigure it). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startSentinelGroup(): Promise<SentinelGroup> {
  ensureDebianPackages(SENTINEL_TOOLS, () => {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-sentinel-'));
  const nodes = new Map<number, ChildProcess>();
  const sentinels: ChildProcess[] = [];
  const [firstPrimary, firstReplica] = [await freePort(), await freePort()];

  const startNode = async (port: number, replicaOf?: number) => {
    const data = path.join(dir, `node-${port}`);
    fs.mkdirSync(data, { recursive: true });
    // Every write on disk before it is answered, as BullMQ's Redis should run (docs/operations.md).
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', data];
    args.push('--appendonly', 'yes', '--appendfsync', 'always');
    if (replicaOf) args.push('--replicaof', '127.0.0.1', String(replicaOf));
    nodes.set(port, spawn('redis-server', args, { stdio: 'ignore' }));
    await waitForRedis(port);
  };
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  const ask = new Redis(sentinelPorts[0] as number, { maxRetriesPerRequest: 1, lazyConnect: true });
  ask.on('error', () => undefined);
  const primaryPort = async () => {
    const [, port] = (await ask.call('SENTINEL', 'get-master-addr-by-name', MASTER)) as [string, string];
    return Number(port);
  };
  let stopped = false;
  const stopAll = async () => {
    stopped = true;
    ask.disconnect();
    await Promise.all([...sentinels, ...nodes.values()].map((child) => killRedisProcess(child)));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await startNode(firstPrimary);
    await startNode(firstReplica, firstPrimary);

    for (const port of sentinelPorts) {
      const conf = path.join(dir, `sentinel-${port}.conf`);
      fs.writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER} 127.0.0.1 ${firstPrimary} 2`,
          // Seconds, not the default 30 s: the test waits for the failover.
          `sentinel down-after-milliseconds ${MASTER} 1000`,
          `sentinel failover-timeout ${MASTER} 5000`,
          `sentinel parallel-syncs ${MASTER} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(spawn('redis-sentinel', [conf], { stdio: 'ignore' }));
      await waitForRedis(port);
    }
    // The replica is known to the sentinels (they found it through the primary) before anyone relies on it.
    await until(
      async () => {
        const replicas = (await ask.call('SENTINEL', 'replicas', MASTER)) as string[][];
        return replicas.some((fields) => fields.includes('slave') && !fields.join(' ').includes('disconnected'));
      },
      'the sentinels to see the replica',
      20_000,
    );
  } catch (error) {
    // Nothing left running when the group cannot start.
    await stopAll();
    throw error;
  }
  const settings: RedisSettings = {
    url: `redis://127.0.0.1:${firstPrimary}`,
    sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
    sentinelName: MASTER,
  };
  return {
    settings,
    env: {
      REDIS_URL: settings.url,
      REDIS_SENTINELS: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_NAME: MASTER,
    },
    primaryPort,
    async killPrimary() {
      const port = await primaryPort();
      await killRedisProcess(nodes.get(port));
      return port;
    },
    async restart(port) {
      // A test's timer may fire after the group was stopped: then there is nothing to restart.
      if (stopped) return;
      // Started as the replica of the node promoted meanwhile; the sentinels would make it one anyway.
      await startNode(port, await primaryPort());
    },
    stop: stopAll,
  };
}
