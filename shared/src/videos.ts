// What a generated intro says about a person (docs/videos.md), shared by the worker that renders it
// and the setup card's 'Profile Data Ready' checklist, so both show the same tagline.

/** SPEC section 2 checklist: the tagline is the intent's own (Custom), the generic one, or made from podcasts. */
export type IntroTaglineKind = 'custom' | 'generic' | 'auto';

export const INTRO_TAGLINE_LABELS: Record<IntroTaglineKind, string> = {
  custom: 'Custom',
  generic: 'Generic',
  auto: 'Auto-generated',
};

export interface IntroTaglineInput {
  /** The tagline of the intent in view (the intent profile's, else the user's intent tagline). */
  intentTagline: string | null | undefined;
  /** The user's generic tagline. */
  genericTagline: string | null | undefined;
  /** Visible podcast names, most listened first. */
  podcastNames: readonly string[];
}

/** The tagline an intro shows, and where it came from. */
export function introTagline(input: IntroTaglineInput): { text: string; kind: IntroTaglineKind } {
  const custom = input.intentTagline?.trim();
  if (custom) return { text: custom, kind: 'custom' };
  const generic = input.genericTagline?.trim();
  if (generic) return { text: generic, kind: 'generic' };
  const names = input.podcastNames.slice(0, 2);
  const text =
    names.length === 0
      ? 'Podcast lover'
      : names.length === 1
        ? `Always listening to ${names[0]}`
        : `Always listening to ${names[0]} and ${names[1]}`;
  return { text, kind: 'auto' };
}
