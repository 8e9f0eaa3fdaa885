// Draws the app's icons (the web app manifest's, the iOS home screen's and the notification badge)
// from the favicon's artwork, with sharp. The PNGs are committed: run this again only when the
// artwork changes.   node --import tsx client/scripts/make-app-icons.ts
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const out = fileURLToPath(new URL('../public/icons/', import.meta.url));

/** The favicon's gradient (the three intent colours) and its microphone, on a 64 x 64 grid. */
const GRADIENT =
  '<linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#D10469"/><stop offset=".5" stop-color="#3465A4"/><stop offset="1" stop-color="#008080"/></linearGradient>';
const MICROPHONE =
  'M32 14a12 12 0 0 0-12 12v8a12 12 0 0 0 24 0v-8a12 12 0 0 0-12-12Zm-18 20h4a14 14 0 0 0 28 0h4a18 18 0 0 1-16 17.9V56h-4v-4.1A18 18 0 0 1 14 34Z';
/** The microphone's box on that grid: x 14-50, y 14-56, so its centre is (32, 35). */
const GLYPH = { centerX: 32, centerY: 35, height: 42 };

/** The microphone `glyphShare` of the icon's height tall, centred. */
function glyph(size: number, glyphShare: number, fill: string): string {
  const scale = (size * glyphShare) / GLYPH.height;
  const x = size / 2 - GLYPH.centerX * scale;
  const y = size / 2 - GLYPH.centerY * scale;
  return `<path transform="translate(${x.toFixed(2)} ${y.toFixed(2)}) scale(${scale.toFixed(4)})" d="${MICROPHONE}" fill="${fill}"/>`;
}

function svg(size: number, body: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}"><defs>${GRADIENT}</defs>${body}</svg>`,
  );
}

const ICONS: { file: string; size: number; body: (size: number) => string }[] = [
  // "any": the favicon as it is, rounded corners on a transparent ground.
  ...[192, 512].map((size) => ({
    file: `icon-${size}.png`,
    size,
    body: (s: number) => `<rect width="${s}" height="${s}" rx="${s / 4}" fill="url(#g)"/>${glyph(s, 42 / 64, '#fff')}`,
  })),
  // "maskable": the launcher cuts its own shape, so the ground fills the square and the microphone
  // stays inside the central safe circle (80 % of the width).
  {
    file: 'icon-maskable-512.png',
    size: 512,
    body: (s) => `<rect width="${s}" height="${s}" fill="url(#g)"/>${glyph(s, 0.46, '#fff')}`,
  },
  // iOS rounds the corners itself and paints transparency black: a full square.
  {
    file: 'apple-touch-icon.png',
    size: 180,
    body: (s) => `<rect width="${s}" height="${s}" fill="url(#g)"/>${glyph(s, 0.56, '#fff')}`,
  },
  // Android's status bar badge: only the alpha channel counts, so a white microphone on nothing.
  { file: 'badge-96.png', size: 96, body: (s) => glyph(s, 0.8, '#fff') },
];

for (const icon of ICONS) {
  await sharp(svg(icon.size, icon.body(icon.size)))
    .png({ compressionLevel: 9, palette: false })
    .toFile(path.join(out, icon.file));
  console.log(`${icon.file} (${icon.size} x ${icon.size})`);
}
