import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';
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
