// Runs the AT Protocol stand-in (@server/test/bluesky-stand-in.ts: PLC directory, handle resolver,
// PDS and OAuth server) for the browser tests or by hand:
//   node --import tsx scripts/bluesky-stand-in.ts --port 5056
// (or ATPROTO_STAND_IN_PORT=5056, as the e2e tier of scripts/test.ts does). Any handle under `.test`
// exists; /oauth/authorize approves at once. Point the server at it with ATPROTO_PLC_URL and
// ATPROTO_HANDLE_RESOLVER set to the URL it prints.
import { AtprotoStandIn } from '@server/test/bluesky-stand-in';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const standIn = new AtprotoStandIn({ port: Number(arg('port') ?? process.env.ATPROTO_STAND_IN_PORT ?? 0) });
await standIn.start();
console.log(`atproto stand-in listening on ${standIn.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void standIn.close().then(() => process.exit(0)));
}
