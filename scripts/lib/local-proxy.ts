// The small load balancer of local multi-instance mode (`SERVER_INSTANCES=2 npm start`, docs/operations.md):
// HTTP and WebSocket upgrades to N server processes, sticky per browser through a cookie (Socket.IO's
// polling transport needs every request of a session on one instance), and only to instances whose
// /api/health answers, so clients of a dead instance reconnect to a live one.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import httpProxy from 'http-proxy';

export const INSTANCE_COOKIE = 'podmatch_instance';
export const INSTANCE_HEADER = 'x-podmatch-instance';
const CHECK_EVERY_MS = 1000;

export interface LocalProxy {
  port: number;
  /** Which instances answer their health check now (indexes into `targets`). */
  up(): number[];
  close(): Promise<void>;
}

interface Options {
  port: number;
  /** Where to listen: this machine only unless told otherwise (the launcher passes HOST). */
  host?: string;
  /** The server instances' ports on 127.0.0.1. */
  targets: number[];
  log: (line: string) => void;
}

function cookieInstance(header: string | undefined): number | undefined {
  const match = header?.match(new RegExp(`(?:^|;\\s*)${INSTANCE_COOKIE}=(\\d+)`));
  return match ? Number(match[1]) : undefined;
}

export async function startLocalProxy({ port, host = '127.0.0.1', targets, log }: Options): Promise<LocalProxy> {
  // Every instance counts as up until a check says otherwise (they were healthy when we started).
  const alive = targets.map(() => true);
  let next = 0;
  const routed = new WeakMap<http.IncomingMessage, { instance: number; newCookie: boolean }>();

  /** The instance for this request: its cookie's when that one is up, else the next live one. */
  function choose(req: http.IncomingMessage): number | undefined {
    const wanted = cookieInstance(req.headers.cookie);
    if (wanted !== undefined && alive[wanted]) {
      routed.set(req, { instance: wanted, newCookie: false });
      return wanted;
    }
    for (let i = 0; i < targets.length; i++) {
      const candidate = (next + i) % targets.length;
      if (alive[candidate]) {
        next = candidate + 1;
        routed.set(req, { instance: candidate, newCookie: true });
        return candidate;
      }
    }
    return undefined;
  }

  const proxy = httpProxy.createProxyServer({ xfwd: true, proxyTimeout: 120_000 });
  proxy.on('proxyRes', (proxyRes, req) => {
    const route = routed.get(req);
    if (!route) return;
    // Which instance answered, for tests and for reading logs side by side.
    proxyRes.headers[INSTANCE_HEADER] = String(route.instance);
    if (!route.newCookie) return;
    const cookie = `${INSTANCE_COOKIE}=${route.instance}; Path=/; HttpOnly; SameSite=Lax`;
    proxyRes.headers['set-cookie'] = [...(proxyRes.headers['set-cookie'] ?? []), cookie];
  });
  proxy.on('error', (error, req, target) => {
    const instance = routed.get(req)?.instance;
    if (instance !== undefined && (error as NodeJS.ErrnoException).code === 'ECONNREFUSED') alive[instance] = false;
    if (target instanceof http.ServerResponse) {
      if (!target.headersSent) {
        target.writeHead(502, { 'content-type': 'application/json' });
        target.end(
          JSON.stringify({ error: 'bad_gateway', message: 'That server is not answering. Please try again.' }),
        );
      } else target.destroy();
    } else (target as Socket).destroy();
  });

  const unavailable = (res: http.ServerResponse) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: 'unavailable', message: 'No server instance is answering. Please try again.' }));
  };

  const server = http.createServer((req, res) => {
    const instance = choose(req);
    if (instance === undefined) return unavailable(res);
    // Each request's id, as HAProxy gives it in a deployment (docs/operations.md, "Logs"): never the client's.
    req.headers['x-request-id'] = randomUUID();
    proxy.web(req, res, { target: `http://127.0.0.1:${targets[instance]}` });
  });
  // Upgraded connections leave the HTTP server's bookkeeping: tracked here to close them on stop.
  const upgraded = new Set<Socket>();
  server.on('upgrade', (req, socket: Socket, head) => {
    const instance = choose(req);
    if (instance === undefined) return socket.destroy();
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    proxy.ws(req, socket, head, { target: `http://127.0.0.1:${targets[instance]}` });
  });

  const check = async () => {
    await Promise.all(
      targets.map(async (target, i) => {
        const answered = await fetch(`http://127.0.0.1:${target}/api/health`, {
          signal: AbortSignal.timeout(2000),
        }).then(
          () => true,
          () => false,
        );
        if (answered !== alive[i]) log(`server instance ${i + 1} (port ${target}) is ${answered ? 'back' : 'down'}`);
        alive[i] = answered;
      }),
    );
  };
  const timer = setInterval(() => void check(), CHECK_EVERY_MS);
  timer.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    up: () => alive.flatMap((ok, i) => (ok ? [i] : [])),
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
    },
  };
}
