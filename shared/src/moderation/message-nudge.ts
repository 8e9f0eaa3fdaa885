import {
  DataSet,
  englishDataset,
  englishRecommendedTransformers,
  type PhraseBuilder,
  pattern,
  RegExpMatcher,
} from 'obscenity';

/**
 * The chat's safety nudge (docs/chat.md, "The safety nudge"): is this message text likely to hurt?
 * The client asks before sending ("Are you sure?"), the server decides what is stored
 * (`messages.flagged`) and the recipient sees "Does this bother you? Report" on a flagged message.
 * A flag never blocks a message.
 *
 * The words are obscenity's English dataset (profanity, slurs and sexual terms, from the `cuss`
 * project) matched with its recommended transformers: confusable Unicode letters, leetspeak
 * ("sh1t", "b!tch"), case and repeated letters ("fuuuck"), with its whitelists for the
 * Scunthorpe cases ("assistant", "classic", "cocktail"). Our changes, kept short:
 */
type Metadata = { originalWord: string };

/**
 * Phrases the dataset (single words) lacks: telling someone to harm themselves. Each is a
 * whole phrase between word boundaries, so "skys" or "overhang yourself" do not count.
 */
const HARASSMENT_PHRASES: ReadonlyArray<(phrase: PhraseBuilder<Metadata>) => PhraseBuilder<Metadata>> = [
  (phrase) =>
    phrase
      .setMetadata({ originalWord: 'kill yourself' })
      .addPattern(pattern`|kill [yo]urself|`)
      .addPattern(pattern`|kill your self|`)
      .addPattern(pattern`|kill urslf|`),
  (phrase) => phrase.setMetadata({ originalWord: 'kys' }).addPattern(pattern`|kys|`),
  (phrase) => phrase.setMetadata({ originalWord: 'hang yourself' }).addPattern(pattern`|hang [yo]urself|`),
  (phrase) => phrase.setMetadata({ originalWord: 'neck yourself' }).addPattern(pattern`|neck [yo]urself|`),
];

/**
 * Ordinary words and titles the dataset's patterns catch, which a chat about podcasts meets (the
 * last three: shows of the demo catalog, which the icebreaker may name): a whitelisted term hides
 * the matches inside it (obscenity's own mechanism).
 */
const ORDINARY_TERMS = [
  'cockpit',
  'pussycat',
  'pussy willow',
  'moby dick',
  'philip k dick',
  'philip k. dick',
  'dick van dyke',
  'cum laude',
  'rapeseed',
  'retardant',
  'penistone',
  'my dad wrote a porno',
  'small town dicks',
  'behind the bastards',
];

/**
 * Removed from the dataset: on a dating app, "sex" and "sexy" are ordinary words ("Sex Education",
 * "Sex and the City", a compliment), not something to be asked "Are you sure?" about.
 */
const NOT_FLAGGED_WORDS = new Set(['sex']);

let matcher: RegExpMatcher | undefined;

/** Built on first use (a few hundred regular expressions), then shared. */
function nudgeMatcher(): RegExpMatcher {
  if (!matcher) {
    const dataset = new DataSet<Metadata>()
      .addAll(englishDataset)
      .removePhrasesIf((phrase) => NOT_FLAGGED_WORDS.has(phrase.metadata?.originalWord ?? ''));
    for (const add of HARASSMENT_PHRASES) dataset.addPhrase(add);
    dataset.addPhrase((phrase) => {
      for (const term of ORDINARY_TERMS) phrase.addWhitelistedTerm(term);
      return phrase;
    });
    matcher = new RegExpMatcher({ ...dataset.build(), ...englishRecommendedTransformers });
  }
  return matcher;
}

/**
 * Letters spelled out one by one ("f u c k", "s.h.i.t", "k-y-s"): three or more single characters
 * separated by spaces or punctuation are joined into a word. obscenity leaves this out of its
 * recommended transformers on purpose (skipping every non-letter joins ordinary neighbouring words
 * into false matches); joining only runs of single letters keeps words apart.
 */
const SPELLED_OUT = /(?<![\p{L}\p{N}])(?:[\p{L}\p{N}@$!*][\s.\-_,+~]+){2,}[\p{L}\p{N}@$!*](?![\p{L}\p{N}])/gu;

function joinSpelledOut(text: string): string {
  return text.replace(SPELLED_OUT, (run) => run.replace(/[\s.\-_,+~]+/gu, ''));
}

/** True when the text holds a word or phrase of the nudge's list (see above). */
export function isMessageFlagged(text: string): boolean {
  const found = nudgeMatcher();
  if (found.hasMatch(text)) return true;
  const joined = joinSpelledOut(text);
  return joined !== text && found.hasMatch(joined);
}
