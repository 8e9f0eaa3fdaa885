// Runs the Spotify stand-in (@server/test/spotify-stand-in.ts) for the browser tests or by hand:
//   node --import tsx scripts/spotify-stand-in.ts --port 5055 [--client-id id]
// (or SPOTIFY_STAND_IN_PORT=5055 in the environment, as the e2e tier of scripts/test.ts does).
// It approves every /authorize as a new demo account with three saved shows and two saved episodes,
// and prints "spotify stand-in listening on <url>" once ready.
import { makeEpisode, makeShow, SpotifyStandIn } from '@server/test/spotify-stand-in';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const standIn = new SpotifyStandIn({
  port: Number(arg('port') ?? process.env.SPOTIFY_STAND_IN_PORT ?? 0),
  host: arg('host') ?? '127.0.0.1',
  clientId: arg('client-id') ?? 'stand-in-client-id',
});
const shows = [
  makeShow('standinshow0000000001', 'The Stand-In Hour', { publisher: 'Local Radio' }),
  makeShow('standinshow0000000002', 'Paging Through History', { publisher: 'Offset Media' }),
  makeShow('standinshow0000000003', 'Refresh Token Talk', { publisher: 'Accounts Service' }),
];
// Each consent signs in as a new listener with the same library, so every browser test starts
// from a Spotify account nobody has linked yet.
let listeners = 0;
standIn.accountFactory = () => {
  listeners += 1;
  return standIn.addAccount({
    id: `standin_listener_${listeners}`,
    displayName: `Stand-In Listener ${listeners}`,
    shows: shows.map((show, i) => ({ show, addedAt: `2026-01-0${i + 1}T09:00:00Z` })),
    episodes: [
      makeEpisode(shows[0]!, 'standinepisode00000001', {
        resumePoint: { fully_played: true, resume_position_ms: 0 },
        addedAt: '2026-02-01T08:00:00Z',
      }),
      makeEpisode(shows[0]!, 'standinepisode00000002', {
        resumePoint: { fully_played: false, resume_position_ms: 600_000 },
        addedAt: '2026-02-03T08:00:00Z',
      }),
    ],
  });
};
await standIn.start();
console.log(`spotify stand-in listening on ${standIn.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void standIn.close().then(() => process.exit(0)));
}
