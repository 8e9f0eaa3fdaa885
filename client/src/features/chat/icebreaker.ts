import { CHAT_TEXTS, ICEBREAKER_TEMPLATES } from '@shared/constants';
import type { FeedSharedPodcast } from '@shared/schemas/feed';

/** How many of the shared podcasts (the ones driving the match come first) an icebreaker picks from. */
export const ICEBREAKER_PODCAST_CHOICES = 3;

function pick<T>(items: readonly T[], random: () => number): T | undefined {
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))];
}

/**
 * A suggested first message (SPEC section 2): one of the templates naming a podcast both people
 * really share, picked among the first three; without a shared podcast, the generic opener.
 */
export function pickIcebreaker(shared: readonly Pick<FeedSharedPodcast, 'name'>[], random = Math.random): string {
  const podcast = pick(shared.slice(0, ICEBREAKER_PODCAST_CHOICES), random);
  const template = pick(ICEBREAKER_TEMPLATES, random);
  if (!podcast || !template) return CHAT_TEXTS.noSharedOpener;
  // A function replacement: a show name may contain '$&' and other replacement patterns.
  return template.replaceAll('{podcast}', () => podcast.name);
}
