// The load balancer of local multi-instance mode (`SERVER_INSTANCES=2 npm start`, docs/operations.md),
// of the browser tests and of the fault tests: HAProxy (Debian's package) started from the same
// configuration template docker-compose uses (deploy/haproxy.cfg). Only what differs on one machine
// is rewritten: the servers are listed statically (127.0.0.1 and each instance's port, sticky
// cookie values 0, 1, ... instead of Docker's DNS), the listen address, and an admin socket that
// says which instances are up. Each answer says which instance served it (X-Podmatch-Instance).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, stopChild } from './local-stack';
import { ensureDebianPackages } from './system-packages';

export const INSTANCE_COOKIE = 'podmatch_instance';
export const INSTANCE_HEADER = 'x-podmatch-instance';
export const HAPROXY_TEMPLATE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/haproxy.cfg');
const HAPROXY = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';

export interface LoadBalancer {
  port: number;
  /** Which instances pass HAProxy's health check now (indexes into `targets`). */
  up(): Promise<number[]>;
  close(): Promise<void>;
}

interface Options {
  /** 0: any free port. */
  port: number;
  /** Where to listen: this machine only unless told otherwise (the launcher passes HOST). */
  host?: string;
  /** The server instances' ports on 127.0.0.1. */
  targets: number[];
  /** Where the pid of a run is written, so a later run can stop one left behind. */
  pidFile?: string;
  log: (line: string) => void;
}

/** deploy/haproxy.cfg with this machine's listen address, servers and admin socket. */
export function localHaproxyConfig(options: { host: string; port: number; targets: number[]; socket: string }): string {
  const template = fs.readFileSync(HAPROXY_TEMPLATE, 'utf8');
  const replace = (pattern: RegExp, by: string, text: string) => {
    if (!pattern.test(text)) throw new Error(`deploy/haproxy.cfg has no line matching ${pattern}`);
    return text.replace(pattern, by);
  };
  let config = replace(/^global\n/m, `global\n  stats socket ${options.socket} mode 600 level admin\n`, template);
  // Docker's DNS does not exist here.
  config = replace(/^resolvers docker\n(?:[ \t]+.*\n)+/m, '', config);
  config = replace(/^([ \t]+)bind :8080$/m, `$1bind ${options.host}:${options.port}`, config);
  const servers = options.targets.map((port, i) => `  server ${i} 127.0.0.1:${port} check cookie ${i}`).join('\n');
  config = replace(
    /^[ \t]+server-template .*$/m,
    `${servers}\n  # Which instance answered, for tests and for reading logs side by side (local only).\n  http-response set-header X-Podmatch-Instance %s`,
    config,
  );
  return config;
}

/** Asks HAProxy's admin socket; answers its reply. */
function ask(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let reply = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => {
      reply += chunk;
    });
    connection.on('end', () => resolve(reply));
    connection.on('error', reject);
    connection.end(`${command}\n`);
  });
}

export async function startLoadBalancer({
  port,
  host = '127.0.0.1',
  targets,
  pidFile,
  log,
}: Options): Promise<LoadBalancer> {
  ensureDebianPackages([{ binary: HAPROXY, packages: ['haproxy'] }], log);
  const listenPort = port === 0 ? await freePort() : port;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pm-haproxy-'));
  const socket = path.join(dir, 'admin.sock');
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, localHaproxyConfig({ host, port: listenPort, targets, socket }));
  // -db: in the foreground, its log lines (one per request) on stdout, which nobody reads here.
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    errors = (errors + chunk).slice(-4000);
  });
  const cleanUp = () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (pidFile) fs.rmSync(pidFile, { force: true });
  };
  try {
    if (pidFile && child.pid) {
      fs.mkdirSync(path.dirname(pidFile), { recursive: true });
      fs.writeFileSync(pidFile, String(child.pid));
    }
    // Ready once the admin socket answers.
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`HAProxy exited while starting:\n${errors}`);
      const answered = await ask(socket, 'show info').then(
        (reply) => reply.includes('Name: HAProxy'),
        () => false,
      );
      if (answered) break;
      if (Date.now() > deadline) throw new Error(`HAProxy did not start:\n${errors}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    // Never left running when the start fails.
    child.kill('SIGKILL');
    cleanUp();
    throw error;
  }
  log(`HAProxy (deploy/haproxy.cfg) on ${host}:${listenPort} in front of ${targets.length} instances`);
  return {
    port: listenPort,
    async up() {
      // `show stat` is CSV: proxy name, server name, ..., status (UP, DOWN, "UP 1/2" when failing).
      const [first, ...lines] = (await ask(socket, 'show stat')).split('\n');
      const status = (first ?? '').replace(/^# /, '').split(',').indexOf('status');
      return (
        lines
          .filter((line) => line.startsWith('servers,'))
          .map((line) => line.split(','))
          // "UP 1/2": up, its checks not yet settled (at start, or failing before it counts as down).
          .filter((cells) => /^\d+$/.test(cells[1] ?? '') && (cells[status] ?? '').startsWith('UP'))
          .map((cells) => Number(cells[1]))
      );
    },
    async close() {
      // SIGUSR1 would wait for open connections (sockets stay up to an hour): stop now.
      await stopChild(child, 'SIGTERM', 'HAProxy', log);
      cleanUp();
    },
  };
}
