// The spoken script of a generated intro (docs/videos.md): short, friendly, from the profile's data.
import { INTENT_INFO, type Intent } from '@shared/index';
import type { IntroInput } from './video-provider';

/** Keeps the narration (and so the video) well under 30 s at espeak-ng's 165 words per minute. */
export const NARRATION_MAX_WORDS = 60;

const CLOSINGS: Record<Intent, string> = {
  romantic: 'If these are on your playlist too, maybe we should talk over coffee.',
  platonic: "If you listen to these too, let's be friends and swap episodes.",
  professional: "If these shows are in your queue too, let's connect and talk shop.",
};

/** Letters, digits and plain punctuation only: emoji and symbols are not read out as their names. */
export function speakable(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}\s.,!?'&:-]/gu, ' ')
    .replace(/&/g, ' and ')
    .replace(/\s+/g, ' ')
    .trim();
}

function list(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function composeNarration(input: Omit<IntroInput, 'narration'>): string {
  const name = speakable(input.displayName) || 'a podcast fan';
  const shows = input.podcasts
    .map((p) => speakable(p.name))
    .filter(Boolean)
    .slice(0, 3);
  const tagline = speakable(input.tagline).replace(/[.!?]+$/, '');
  const sentences = [
    `Hi, I'm ${name}.`,
    tagline ? `${tagline}.` : '',
    shows.length > 0 ? `My top podcasts are ${list(shows)}.` : '',
    CLOSINGS[input.intent] ?? `I'm here for ${INTENT_INFO[input.intent].label}.`,
  ].filter(Boolean);
  const words = sentences.join(' ').split(' ');
  if (words.length <= NARRATION_MAX_WORDS) return words.join(' ');
  return `${words
    .slice(0, NARRATION_MAX_WORDS)
    .join(' ')
    .replace(/[,;:]$/, '')}.`;
}
