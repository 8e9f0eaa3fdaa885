import { describe, expect, it } from 'vitest';
import { DevLoginBodySchema } from '../schemas/auth';
import { IdSchema } from '../schemas/common';
import { UpdateUserBodySchema } from '../schemas/user';
import { api, buildPath } from '.';

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

  it('defines every endpoint under /api with a response schema', () => {
    for (const endpoint of Object.values(api)) {
      expect(endpoint.path.startsWith('/api/')).toBe(true);
      expect(endpoint.response).toBeDefined();
    }
  });
});
