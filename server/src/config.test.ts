import { describe, expect, it } from 'vitest';
import { exposedDevLoginWarning, loadConfig, loadListenSettings } from './config';
import { testEnv } from './test/harness';

describe('TRUST_PROXY', () => {
  const trust = (value: string | undefined) => loadConfig(testEnv({ TRUST_PROXY: value })).trustProxy;

  it('believes no X-Forwarded-For by default, or only the given hops or proxy addresses', () => {
    expect(trust(undefined)).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('0')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('10.0.0.1, 10.1.0.0/16,loopback')).toEqual(['10.0.0.1', '10.1.0.0/16', 'loopback']);
    expect(trust('fd00::/8')).toEqual(['fd00::/8']);
  });

  it('refuses "trust everything" and anything that is not an address, subnet or hop count', () => {
    expect(() => trust('true')).toThrow(/TRUST_PROXY: trusting every proxy/);
    expect(() => trust('11')).toThrow(/TRUST_PROXY/);
    expect(() => trust('proxy.example.com')).toThrow(/TRUST_PROXY: not an address/);
    expect(() => trust('10.0.0.0/999')).toThrow(/TRUST_PROXY/);
  });
});

describe('HOST', () => {
  it('is loopback outside production and every interface in production, unless HOST says otherwise', () => {
    expect(loadConfig(testEnv({ HOST: undefined, NODE_ENV: 'development' })).host).toBe('127.0.0.1');
    expect(loadConfig(testEnv({ HOST: undefined, NODE_ENV: 'test' })).host).toBe('127.0.0.1');
    expect(loadConfig(testEnv({ HOST: undefined, NODE_ENV: 'production' })).host).toBe('0.0.0.0');
    expect(loadConfig(testEnv({ HOST: undefined, NODE_ENV: undefined })).host).toBe('0.0.0.0');
    expect(loadConfig(testEnv({ HOST: '0.0.0.0', NODE_ENV: 'development' })).host).toBe('0.0.0.0');
    expect(loadListenSettings({ NODE_ENV: 'development' })).toEqual({ host: '127.0.0.1', allowDevLogin: true });
    expect(loadListenSettings({ NODE_ENV: 'production', HOST: '::' })).toEqual({ host: '::', allowDevLogin: false });
  });

  it('warns when dev login is on and the address is not loopback', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
      expect(exposedDevLoginWarning(host, true)).toBeNull();
    }
    for (const host of ['0.0.0.0', '::', '192.0.2.2', 'example.com']) {
      expect(exposedDevLoginWarning(host, true)).toMatch(/dev login is on/);
      expect(exposedDevLoginWarning(host, false)).toBeNull();
    }
  });
});

describe('Bluesky (AT Protocol) client', () => {
  const bluesky = (env: Record<string, string | undefined>) =>
    loadConfig(testEnv({ TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), ...env })).bluesky;

  it('is the loopback client outside production, and in production only on this machine', () => {
    expect(bluesky({ NODE_ENV: 'development', PUBLIC_URL: undefined }).client.kind).toBe('loopback');
    expect(bluesky({ NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:8080' }).client.kind).toBe('loopback');
    expect(bluesky({ NODE_ENV: 'production', PUBLIC_URL: 'http://127.0.0.1:8080/' }).client.kind).toBe('loopback');
    expect(bluesky({ NODE_ENV: 'production', PUBLIC_URL: 'http://podmatch.example' }).client).toEqual({
      kind: 'unavailable',
      reason: 'Linking Bluesky is not set up on this server yet.',
    });
    expect(bluesky({ NODE_ENV: 'production', PUBLIC_URL: undefined }).client.kind).toBe('unavailable');
  });

  it('refuses AT Protocol servers on private addresses or plain http in production unless the operator allows them', () => {
    expect(bluesky({ NODE_ENV: 'development' }).allowHttp).toBe(true);
    expect(bluesky({ NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:8080' }).allowHttp).toBe(false);
    expect(
      bluesky({ NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:8080', ATPROTO_ALLOW_PRIVATE_ADDRESSES: 'true' })
        .allowHttp,
    ).toBe(true);
    expect(() => bluesky({ NODE_ENV: 'production', ATPROTO_ALLOW_PRIVATE_ADDRESSES: 'yes please' })).toThrow(
      /ATPROTO_ALLOW_PRIVATE_ADDRESSES/,
    );
  });
});

describe('empty settings', () => {
  it('count as unset (docker compose passes empty strings for unset names)', () => {
    const config = loadConfig(testEnv({ NODE_ENV: 'production', SMTP_URL: '', PUBLIC_URL: '', HOST: '' }));
    expect(config.host).toBe('0.0.0.0');
    expect(config.bluesky.client.kind).toBe('unavailable');
    expect(config.mail.smtpUrl).toBeUndefined();
    expect(() => loadConfig(testEnv({ SMTP_URL: 'not a url' }))).toThrow(/SMTP_URL/);
  });
});
