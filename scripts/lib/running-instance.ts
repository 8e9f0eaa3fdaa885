// What the command-line tools (npm run admin, backup, restore) work on: DATABASE_URL and the media
// settings of the environment, or else the instance `npm start` runs from this checkout.
import fs from 'node:fs';
import path from 'node:path';

const dataDir = () => path.resolve(process.env.DATA_DIR ?? '.data');

/** DATABASE_URL, or the database `npm start` runs (its URL in .data/run/database-url); else exits. */
export function databaseUrlOrExit(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const file = path.join(dataDir(), 'run', 'database-url');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  console.error('Set DATABASE_URL, or run this while `npm start` is running.');
  process.exit(2);
}

/** The environment the media settings are read from: `npm start` keeps media in .data/media. */
export function mediaEnv(): NodeJS.ProcessEnv {
  return { ...process.env, MEDIA_DIR: process.env.MEDIA_DIR ?? path.join(dataDir(), 'media') };
}
