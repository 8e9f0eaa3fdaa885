// Where the server and the load balancer (HAProxy) of `npm start` listen (docs/operations.md, "Listen address"):
// outside production dev login is on, so by default only this machine may reach them. The attack: a
// request for dev login sent to one of this machine's other addresses, as another machine on the
// network would send it.
import net from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoadBalancer, startLoadBalancer } from '../../scripts/lib/load-balancer';
import { loadConfig } from './config';
import type { Logger } from './core/logger';
import { type RunningServer, startServer } from './server';
import { testEnv, uniqueName } from './test/harness';

/** An IPv4 address of this machine that is not loopback (what others on the network reach), if any. */
const outsideAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

/** Whether a TCP connection to host:port is accepted (refused: false). */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(5000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${port} within 5 s`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve(false) : reject(error),
    );
  });
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const quiet = () => undefined;
  return { warnings, debug: quiet, info: quiet, error: quiet, warn: (message) => warnings.push(message) };
}

const devLogin = (host: string, port: number) =>
  fetch(`http://${host}:${port}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: uniqueName('listen') }),
  });

describe('listen address', () => {
  let running: RunningServer | undefined;
  let proxy: LoadBalancer | undefined;
  afterEach(async () => {
    await running?.close();
    await proxy?.close();
    running = undefined;
    proxy = undefined;
  });

  async function start(overrides: Record<string, string | undefined>) {
    const logger = recordingLogger();
    running = await startServer(loadConfig(testEnv({ HOST: undefined, ...overrides })), logger);
    const address = running.http.address() as net.AddressInfo;
    return { logger, port: address.port, bound: address.address };
  }

  it('development: dev login answers on this machine only; another address of it is refused', async () => {
    const { logger, port, bound } = await start({ NODE_ENV: 'development' });
    expect(bound).toBe('127.0.0.1');
    expect((await devLogin('127.0.0.1', port)).status).toBe(200);
    if (outsideAddress) {
      expect(await reachable(outsideAddress, port)).toBe(false);
      await expect(devLogin(outsideAddress, port)).rejects.toThrow();
    }
    expect(logger.warnings).toEqual([]);
    console.log(
      `listen address: development bound ${bound}:${port}, from ${outsideAddress ?? '(no other address)'} refused`,
    );
  });

  it('production: every interface, without dev login', async () => {
    const { port, bound } = await start({ NODE_ENV: 'production' });
    expect(bound).toBe('0.0.0.0');
    if (outsideAddress) {
      expect(await reachable(outsideAddress, port)).toBe(true);
      expect((await devLogin(outsideAddress, port)).status).toBe(404);
    }
  });

  it('HOST overrides both; an exposed dev login is warned about', async () => {
    const exposed = await start({ NODE_ENV: 'development', HOST: '0.0.0.0' });
    expect(exposed.bound).toBe('0.0.0.0');
    if (outsideAddress) expect(await reachable(outsideAddress, exposed.port)).toBe(true);
    expect(exposed.logger.warnings).toEqual([expect.stringMatching(/dev login is on and HOST=0\.0\.0\.0/)]);
    await running?.close();
    running = undefined;

    const local = await start({ NODE_ENV: 'production', HOST: '127.0.0.1' });
    expect(local.bound).toBe('127.0.0.1');
    if (outsideAddress) expect(await reachable(outsideAddress, local.port)).toBe(false);
    expect(local.logger.warnings).toEqual([]);
  });

  it('HAProxy in multi-instance mode listens on this machine only unless it is told where', async () => {
    proxy = await startLoadBalancer({ port: 0, targets: [9], log: () => undefined });
    expect(await reachable('127.0.0.1', proxy.port)).toBe(true);
    if (outsideAddress) expect(await reachable(outsideAddress, proxy.port)).toBe(false);
  });
});
