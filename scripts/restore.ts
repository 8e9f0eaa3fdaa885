// npm run restore -- <backup directory> [--clean] (docs/operations.md, "Backups"): the database into
// DATABASE_URL (empty, unless --clean replaces its tables) and the files into the media store of the
// MEDIA_* / S3_* settings. Stop the app first; start it afterwards (it migrates a restored older
// schema forward).
import path from 'node:path';
import { createMediaStore, loadMediaSettings } from '@server/core/media';
import { restore } from './lib/backup';
import { databaseUrlOrExit, mediaEnv } from './lib/running-instance';

const args = process.argv.slice(2);
const from = args.find((a) => !a.startsWith('--'));
const unknown = args.filter((a) => a.startsWith('--') && a !== '--clean');
if (!from || unknown.length > 0) {
  console.error('Usage: npm run restore -- <backup directory> [--clean]');
  process.exit(2);
}
try {
  const done = await restore({
    databaseUrl: databaseUrlOrExit(),
    media: createMediaStore(loadMediaSettings(mediaEnv())),
    from: path.resolve(from),
    clean: args.includes('--clean'),
    log: (line) => console.log(line),
  });
  console.log(`Restored ${done.tables} tables and ${done.files} media files from ${path.resolve(from)}.`);
  process.exit(0);
} catch (error) {
  console.error(`Restore failed: ${(error as Error).message}`);
  process.exit(1);
}
