// The local proxy of multi-instance mode as its own process (scripts/lib/local-proxy.ts), for the
// test runner, whose event loop is blocked while Playwright runs. PORT, HOST and PROXY_TARGETS (the
// server instances' ports, comma-separated) in the environment.
import { startLocalProxy } from './lib/local-proxy';

const targets = (process.env.PROXY_TARGETS ?? '')
  .split(',')
  .map(Number)
  .filter((p) => p > 0);
if (targets.length === 0) throw new Error('PROXY_TARGETS must list the server ports, e.g. 5001,5002');
const proxy = await startLocalProxy({
  port: Number(process.env.PORT ?? 5000),
  host: process.env.HOST ?? '127.0.0.1',
  targets,
  log: (line) => console.log(line),
});
console.log(`local proxy on port ${proxy.port} -> ${targets.join(', ')}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void proxy.close().then(() => process.exit(0)));
}
