// Generated letter placeholders for podcast artwork (SPEC section 8: "a generated letter
// placeholder (podcast icon)"): the show's first letter or digit on a colour derived from its name.

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The first letter or digit of a show's name, skipping a leading "The"; '?' when there is none. */
export function placeholderInitial(name: string): string {
  const normalized = name.normalize('NFKC').trim();
  const withoutArticle = normalized.replace(/^the\s+(?=[\p{L}\p{N}])/iu, '');
  const match = withoutArticle.match(/[\p{L}\p{N}]/u) ?? normalized.match(/[\p{L}\p{N}]/u);
  return (match?.[0] ?? '?').toLocaleUpperCase();
}

/** FNV-1a of the lower-cased name: the same show always gets the same colour. */
function hue(name: string): number {
  let h = 0x811c9dc5;
  for (const ch of name.normalize('NFKC').trim().toLowerCase()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % 360;
}

export function placeholderColors(name: string): readonly [string, string] {
  const h = hue(name);
  return [`hsl(${h} 58% 44%)`, `hsl(${(h + 35) % 360} 62% 30%)`];
}

/** A square SVG in the style of a podcast cover: gradient, big initial, a small broadcast icon. */
export function renderPlaceholderSvg(name: string): string {
  const [from, to] = placeholderColors(name);
  // A gradient id per colour, so several placeholders inlined in one page do not share one.
  const gradient = `pm-art-${hue(name)}`;
  const label = escapeXml(name || 'Podcast');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300" viewBox="0 0 300 300" role="img" aria-label="${label}">
<defs><linearGradient id="${gradient}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
<rect width="300" height="300" rx="36" fill="url(#${gradient})"/>
<text x="150" y="138" dy=".35em" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-size="150" font-weight="700" fill="#fff">${escapeXml(placeholderInitial(name))}</text>
<g transform="translate(150 254)" fill="none" stroke="#fff" stroke-opacity=".8" stroke-width="5" stroke-linecap="round">
<circle r="6" fill="#fff" stroke="none"/>
<path d="M-13-13A18 18 0 0 0-13 13M13-13A18 18 0 0 1 13 13M-24-24A34 34 0 0 0-24 24M24-24A34 34 0 0 1 24 24"/>
</g>
</svg>
`;
}
