import { LIMITS } from '@shared/index';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { storableText } from '../../core/db/entities';
import { checkUrl, FEED_PORTS, FetchRefusedError } from '../../core/net/safe-fetch';

export interface OpmlFeed {
  feedUrl: string;
  title: string | null;
}

export class OpmlError extends Error {}

export const OPML_LIMITS = { maxBytes: LIMITS.opmlMaxBytes, maxFeeds: 2000, maxDepth: 8 } as const;

interface Outline {
  [key: string]: unknown;
  outline?: Outline | Outline[];
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Attribute lookup that tolerates the casing differences between apps (xmlUrl, xmlurl, XMLURL). */
function attribute(outline: Outline, name: string): string | undefined {
  const wanted = `@_${name.toLowerCase()}`;
  for (const [key, value] of Object.entries(outline)) {
    if (key.toLowerCase() === wanted && typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

/**
 * Reads the podcast subscriptions from an OPML export (AntennaPod, Pocket Casts, Overcast and
 * others): every outline with an xmlUrl, at any depth. Credentials in feed URLs are stripped,
 * duplicates removed. Throws OpmlError with a user-facing message when the file is unusable.
 */
export function parseOpml(text: string, options: { anyPort?: boolean } = {}): { feeds: OpmlFeed[]; skipped: number } {
  if (Buffer.byteLength(text) > OPML_LIMITS.maxBytes) throw new OpmlError('The OPML file is larger than 1 MB.');
  // OPML never needs a DTD; refusing it rules out entity-expansion and external-entity tricks.
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new OpmlError('The OPML file contains a DOCTYPE, which is not allowed.');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new OpmlError(`The file is not valid XML (line ${valid.err.line}: ${valid.err.msg}).`);

  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    processEntities: true,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
  });
  const doc = parser.parse(text) as { opml?: { body?: { outline?: Outline | Outline[] } } };
  if (!doc.opml) throw new OpmlError('The file is not OPML (no <opml> element).');
  const body = doc.opml.body;
  if (!body) throw new OpmlError('The OPML file has no <body>.');

  const feeds = new Map<string, OpmlFeed>();
  let skipped = 0;
  const visit = (outlines: Outline[], depth: number) => {
    if (depth > OPML_LIMITS.maxDepth) return;
    for (const outline of outlines) {
      const raw =
        attribute(outline, 'xmlUrl') ?? (attribute(outline, 'type') === 'rss' ? attribute(outline, 'url') : undefined);
      if (raw) {
        try {
          // Feeds only on ports 80 and 443 (a development allow-list lifts this for local test feeds).
          const feedUrl = checkUrl(raw, { ports: options.anyPort ? undefined : FEED_PORTS });
          if (!feeds.has(feedUrl)) {
            const title = attribute(outline, 'title') ?? attribute(outline, 'text');
            feeds.set(feedUrl, { feedUrl, title: title ? storableText(title, 300) || null : null });
          }
        } catch (error) {
          if (!(error instanceof FetchRefusedError)) throw error;
          skipped++;
        }
      }
      visit(asArray(outline.outline), depth + 1);
    }
  };
  visit(asArray(body.outline), 0);

  if (feeds.size === 0) throw new OpmlError('No podcast feeds found in the OPML file (no outline has an xmlUrl).');
  if (feeds.size > OPML_LIMITS.maxFeeds)
    throw new OpmlError(`The OPML file lists more than ${OPML_LIMITS.maxFeeds} feeds.`);
  return { feeds: [...feeds.values()], skipped };
}
