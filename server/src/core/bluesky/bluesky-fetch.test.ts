// The fetch the AT Protocol client uses (docs/bluesky.md): in production, an authorization server or
// PDS named by someone's DID document cannot make our server call into its own network.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueskyFetch } from './bluesky-client';

describe('blueskyFetch', () => {
  let server: http.Server;
  let calls = 0;
  let url = '';

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      calls++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/xrpc/internal`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('in production refuses loopback, private and plain-http targets without connecting', async () => {
    const fetch = blueskyFetch(false);
    for (const target of [
      url,
      `https://127.0.0.1:${new URL(url).port}/`,
      'https://10.0.0.1/.well-known/oauth-authorization-server',
      'https://169.254.169.254/latest/meta-data/',
      'http://pds.example.com/',
    ]) {
      await expect(fetch(target), target).rejects.toThrow();
    }
    expect(calls).toBe(0);
  });

  it('outside production reaches a stand-in on localhost', async () => {
    const res = await blueskyFetch(true)(url);
    expect(res.status).toBe(200);
    expect(calls).toBe(1);
  });
});
