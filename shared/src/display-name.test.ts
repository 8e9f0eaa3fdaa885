import { describe, expect, it } from 'vitest';
import { cleanDisplayName, displayName, FALLBACK_DISPLAY_NAME } from './display-name';

describe('cleanDisplayName', () => {
  it('strips emoji, skin tones, joiners, keycaps, flags and tag sequences', () => {
    expect(cleanDisplayName('Ada 🎧 Listener')).toBe('Ada Listener');
    expect(cleanDisplayName('👩‍👩‍👧 Family')).toBe('Family');
    expect(cleanDisplayName('👩🏽‍💻 Dev')).toBe('Dev');
    expect(cleanDisplayName('Río 🇪🇸')).toBe('Río');
    expect(cleanDisplayName('Ünï 🏴󠁧󠁢󠁳󠁣󠁴󠁿')).toBe('Ünï');
    expect(cleanDisplayName('❤️ Jo ✨')).toBe('Jo');
    expect(cleanDisplayName('1️⃣ Jo')).toBe('1 Jo');
  });

  it('strips flower and other dingbat symbols (the Matches tofu box)', () => {
    expect(cleanDisplayName('Zoe 🌸')).toBe('Zoe');
    expect(cleanDisplayName('Zoe ❀ ✿ ⚘ ★')).toBe('Zoe');
  });

  it('strips private-use, control and format characters', () => {
    expect(cleanDisplayName('\uE000Sam\uF8FF')).toBe('Sam');
    expect(cleanDisplayName('Sam\u{F0000}')).toBe('Sam');
    expect(cleanDisplayName('a\u0007b\u0000c')).toBe('abc');
    expect(cleanDisplayName('\u202eevil\u200b')).toBe('evil');
  });

  it('keeps letters, marks, digits, punctuation, math and currency of any script', () => {
    expect(cleanDisplayName("O'Brien-Smith 2")).toBe("O'Brien-Smith 2");
    expect(cleanDisplayName('Zoë 李')).toBe('Zoë 李');
    expect(cleanDisplayName('C++ €5 a+b')).toBe('C++ €5 a+b');
    expect(cleanDisplayName('Zoe\u0301')).toBe('Zoe\u0301');
    expect(cleanDisplayName('می\u200cخواهم')).toBe('می\u200cخواهم');
  });

  it('collapses whitespace runs and trims; empty input gives an empty string', () => {
    expect(cleanDisplayName('  Ada \t\n  Lovelace  ')).toBe('Ada Lovelace');
    expect(cleanDisplayName('Ada 🎧 🎧 Lovelace')).toBe('Ada Lovelace');
    expect(cleanDisplayName('')).toBe('');
    expect(cleanDisplayName(null)).toBe('');
    expect(cleanDisplayName(undefined)).toBe('');
    expect(cleanDisplayName('🎧 ✨')).toBe('');
  });
});

describe('displayName', () => {
  it('takes the first candidate with something left once cleaned', () => {
    expect(displayName('Zoe 🌸', 'zoe_user')).toBe('Zoe');
    expect(displayName(null, '🎧', 'zoe_user')).toBe('zoe_user');
    expect(displayName(undefined, 'Jo ✨')).toBe('Jo');
  });

  it('falls back to the generic name when nothing is left', () => {
    expect(displayName('🎧', '   ', null)).toBe(FALLBACK_DISPLAY_NAME);
    expect(displayName()).toBe(FALLBACK_DISPLAY_NAME);
  });
});
