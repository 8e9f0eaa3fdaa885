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
