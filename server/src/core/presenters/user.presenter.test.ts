import { describe, expect, it } from 'vitest';
import { type PublicUserRow, toPublicUser } from './user.presenter';

const row = (profileName: string | null, userName: string): PublicUserRow =>
  ({
    u_id: 5,
    u_display_name: userName,
    u_profile_picture: null,
    u_video_intro_url: null,
    u_romantic_tagline: null,
    u_platonic_tagline: null,
    u_professional_tagline: null,
    pr_display_name: profileName,
    pr_tagline: null,
    pr_profile_picture: null,
    pr_video_intro_url: null,
  }) as PublicUserRow;

describe('toPublicUser display names (the one rule of shared/src/display-name.ts)', () => {
  it('strips emoji and symbols from the name another person sees', () => {
    expect(toPublicUser(row('Zoe 🌸❀', 'zoe'), 'romantic').displayName).toBe('Zoe');
  });

  it("falls back to the account's name, then to 'Listener', when nothing is left", () => {
    expect(toPublicUser(row('🌸🌸', 'Zoe Q'), 'romantic').displayName).toBe('Zoe Q');
    expect(toPublicUser(row(null, '🎧'), 'romantic').displayName).toBe('Listener');
  });
});
