// Serves the synthetic shows' RSS feeds on loopback, as their podcast hosts would: the evaluation's
// OPML files name these URLs, and the worker reads them like any feed (FEED_FETCH_ALLOWED_IPS lets it
// reach loopback on any port, development and tests only; docs/podcasts.md, "Reading RSS feeds").
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rssDocument, showAtPath } from './populations';

export interface FeedServer {
  /** `http://127.0.0.1:<port>`: a show's feed URL is this plus its path. */
  base: string;
  /** Feeds served so far (the worker's successful reads). */
  reads(): number;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  let reads = 0;
  const server = http.createServer((req, res) => {
    const show = showAtPath(new URL(req.url ?? '/', 'http://x').pathname);
    if (!show || req.method !== 'GET') {
      res.writeHead(404).end('no such feed');
      return;
    }
    reads++;
    res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' }).end(rssDocument(show));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reads: () => reads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
