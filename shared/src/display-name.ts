/**
 * The one display-name rule (SPEC: "a display name (emoji and symbols stripped)"): the server applies
 * it to every name it shows another person (server/src/core/presenters/user.presenter.ts), and the
 * client wherever a name is shown (feed card, floating match card, Matches cards, feed greeting).
 *
 * Kept: letters and combining marks of any script, digits, punctuation, math and currency signs.
 * Removed: emoji and pictographs (with their skin-tone modifiers, variation selectors, joiners,
 * keycap marks, tag characters and regional-indicator flags), other symbols (dingbats such as
 * ❀ or ★), private-use characters (tofu boxes), control, format (but the zero-width non-joiner
 * some scripts need) and surrogate code points.
 * Whitespace runs collapse to one space and the ends are trimmed.
 */
const PICTOGRAPHS =
  /\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\p{So}/gu;
const INVISIBLES = /\u20e3|\p{Variation_Selector}|\p{Co}|\p{Cc}|(?!\u200c)\p{Cf}|\p{Cs}/gu;

export function cleanDisplayName(name: string | null | undefined): string {
  if (!name) return '';
  return name.replace(PICTOGRAPHS, '').replace(INVISIBLES, '').replace(/\s+/gu, ' ').trim();
}

/** What a person is called when none of their names has anything left to show. */
export const FALLBACK_DISPLAY_NAME = 'Listener';

/**
 * The first candidate that is not empty once cleaned (e.g. the intent profile's name, then the
 * user's, then the username where the viewer may see it), else `FALLBACK_DISPLAY_NAME`.
 */
export function displayName(...candidates: ReadonlyArray<string | null | undefined>): string {
  for (const candidate of candidates) {
    const cleaned = cleanDisplayName(candidate);
    if (cleaned) return cleaned;
  }
  return FALLBACK_DISPLAY_NAME;
}
