import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DevLoginBodySchema } from '../schemas/auth';
import { IdSchema } from '../schemas/common';
import { UpdateUserBodySchema } from '../schemas/user';
import { ACCESS_PARAM, api, buildPath, defineEndpoint } from '.';

describe('buildPath', () => {
  it('fills parameters, encodes them and appends the query', () => {
    expect(buildPath(api.getUser.path, { userId: 7 })).toBe('/api/users/7');
    expect(buildPath('/api/x/:id', { id: 'a b/c' }, { intent: 'platonic', skip: undefined })).toBe(
      '/api/x/a%20b%2Fc?intent=platonic',
    );
  });
  it('throws when a parameter is missing', () => {
    expect(() => buildPath(api.getUser.path, {})).toThrow('userId');
  });
});

describe('schemas', () => {
  it('trims usernames and names the rule that failed', () => {
    expect(DevLoginBodySchema.parse({ username: '  sam ' })).toEqual({ username: 'sam' });
    expect(DevLoginBodySchema.safeParse({ username: '' }).error?.issues[0]?.message).toBe('Username required');
    expect(DevLoginBodySchema.safeParse({ username: 'x', extra: 1 }).success).toBe(false);
  });

  it('accepts only positive 32-bit integer ids', () => {
    expect(IdSchema.parse('12')).toBe(12);
    for (const bad of ['0', '-3', '1.5', 'abc', '4294967296', '']) expect(IdSchema.safeParse(bad).success).toBe(false);
  });

  it('allows only the listed user fields', () => {
    expect(UpdateUserBodySchema.safeParse({ intent: 'platonic' }).success).toBe(true);
    expect(UpdateUserBodySchema.safeParse({ password: 'x' }).success).toBe(false);
    expect(UpdateUserBodySchema.safeParse({ spotifyId: 'x' }).success).toBe(false);
  });

  it('defines every endpoint under /api (development pages under /dev) with a response schema', () => {
    for (const endpoint of Object.values(api)) {
      expect(endpoint.path.startsWith('/api/') || /^\/dev\/[a-z]/.test(endpoint.path)).toBe(true);
      expect(endpoint.response).toBeDefined();
    }
  });
});

describe('access rules in the contract', () => {
  it('gives every endpoint a rule, and the path parameter its rule reads', () => {
    for (const [name, endpoint] of Object.entries(api)) {
      const param = ACCESS_PARAM[endpoint.access];
      if (param) expect(endpoint.path, name).toContain(`:${param}`);
    }
  });

  it('refuses, at compile time and at run time, an endpoint whose rule reads a missing path parameter', () => {
    expect(() =>
      defineEndpoint({
        method: 'GET',
        path: '/api/things',
        access: 'owner',
        response: z.object({}),
        // @ts-expect-error -- 'owner' needs :userId in params
        params: z.strictObject({ id: IdSchema }),
      }),
    ).toThrow(/needs the path parameter :userId/);
  });

  it('does not compile an endpoint without an access rule', () => {
    // @ts-expect-error -- access is required
    const build = () => defineEndpoint({ method: 'GET', path: '/api/things', response: z.object({}) });
    expect(build).toBeTypeOf('function');
  });
});
