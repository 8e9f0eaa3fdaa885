import { describe, expect, it } from 'vitest';
import { isMessageFlagged } from './message-nudge';

describe('isMessageFlagged', () => {
  it('flags profanity, slurs and insults from the word list', () => {
    for (const text of [
      'fuck you',
      'You are such a whore',
      'what a bitch',
      'it was bullshit',
      'shut up, retard',
      'you bastard',
      'nice dicks',
    ]) {
      expect(isMessageFlagged(text), text).toBe(true);
    }
  });

  it('flags the harassment phrases the word list lacks', () => {
    for (const text of ['kill yourself', 'just KYS', 'kill urself loser', 'go hang yourself', 'neck yourself']) {
      expect(isMessageFlagged(text), text).toBe(true);
    }
  });

  it('sees through leetspeak, look-alike letters, repeated letters and spelled-out words', () => {
    for (const text of [
      'sh1t',
      'you b1tch',
      'sh!t',
      'a$$hole',
      'fuuuuuck',
      'fμck off',
      'ƒuck',
      'f u c k you',
      'F.U.C.K',
      'f-u-c-k off',
      's h ! t',
      'k y s',
    ]) {
      expect(isMessageFlagged(text), text).toBe(true);
    }
  });

  it('leaves ordinary messages and podcast talk alone', () => {
    for (const text of [
      'Hi! 👋 How is your week going?',
      'Scunthorpe United have a podcast now',
      'my assistant keeps recommending true crime',
      'Hardcore History is a classic',
      'Shall we talk about The Daily over a cocktail?',
      'I love the Sex Education soundtrack, and Sex and the City recaps',
      'Moby Dick, read by Philip K. Dick fans',
      'They recorded it in a cockpit',
      'Pussycat Dolls and the Dick Van Dyke show',
      'graduated cum laude',
      'Dickens, Hitchcock and Essex in one episode',
      'I analysed the Arsenal episode',
      'What the hell, that was a damn good ending',
      'hang your coat, then listen to Serial',
      'the U S A and A B C news',
      'kung fu panda',
      'Have you heard My Dad Wrote A Porno? Or Small Town Dicks, or Behind the Bastards?',
    ]) {
      expect(isMessageFlagged(text), text).toBe(false);
    }
  });
});
