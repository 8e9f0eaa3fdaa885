import { describe, expect, it } from 'vitest';
import { composeNarration, NARRATION_MAX_WORDS, speakable } from './narration';

const input = {
  intent: 'platonic' as const,
  displayName: 'Ada 🎧',
  tagline: 'Always listening to Serial!',
  taglineKind: 'custom' as const,
  matchPercentage: 95,
  picture: null,
  podcasts: ['Serial', 'Radiolab', 'Hidden Brain', 'The Daily'].map((name) => ({ name, creator: null, artwork: null })),
};

describe('composeNarration', () => {
  it('introduces the person, their tagline and top three shows, with the intent closing', () => {
    expect(composeNarration(input)).toBe(
      "Hi, I'm Ada. Always listening to Serial. My top podcasts are Serial, Radiolab and Hidden Brain. If you listen to these too, let's be friends and swap episodes.",
    );
  });

  it('stays short whatever the profile holds, and reads no symbols', () => {
    const long = composeNarration({ ...input, tagline: 'word '.repeat(200), displayName: '<b>Zoë</b> ★★★' });
    expect(long.split(' ').length).toBeLessThanOrEqual(NARRATION_MAX_WORDS);
    expect(long).toContain("I'm b Zoë b.");
    expect(speakable('Rock & Roll ★ 🎸')).toBe('Rock and Roll');
  });
});
