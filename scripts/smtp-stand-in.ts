// Runs the SMTP stand-in (@server/test/smtp-stand-in.ts: a real smtp-server, messages parsed with
// mailparser) for the browser tests or by hand:
//   node --import tsx scripts/smtp-stand-in.ts --port 2525 --http-port 2526
// (or SMTP_STAND_IN_PORT / SMTP_STAND_IN_HTTP_PORT, as the e2e tier of scripts/test.ts does). Point
// a server at it with SMTP_URL=smtp://127.0.0.1:<port>. What it received is read over HTTP:
// GET /latest?to=<address> -> {to, subject, text, code} of the newest message to it (404 before one).
import http from 'node:http';
import { SmtpStandIn } from '@server/test/smtp-stand-in';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const standIn = await SmtpStandIn.start(undefined, Number(arg('port') ?? process.env.SMTP_STAND_IN_PORT ?? 0));
const reader = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const to = url.searchParams.get('to') ?? '';
  const latest = url.pathname === '/latest' ? standIn.to(to).at(-1) : undefined;
  res.writeHead(latest ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(latest ?? { error: 'not_found', message: `No message to ${to} yet.` }));
});
await new Promise<void>((resolve) =>
  reader.listen(Number(arg('http-port') ?? process.env.SMTP_STAND_IN_HTTP_PORT ?? 0), '127.0.0.1', resolve),
);
const { port } = reader.address() as { port: number };
console.log(`smtp stand-in listening on ${standIn.url}, messages at http://127.0.0.1:${port}/latest?to=`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    reader.close();
    void standIn.close().then(() => process.exit(0));
  });
}
