// npm run backup [-- <directory>] (docs/operations.md, "Backups"): the database (pg_dump) and the
// media store into a new directory, by default .data/backups/<time>. Against DATABASE_URL and the
// MEDIA_* / S3_* settings, or else the instance `npm start` runs.
import path from 'node:path';
import { createMediaStore, loadMediaSettings } from '@server/core/media';
import { backup } from './lib/backup';
import { databaseUrlOrExit, mediaEnv } from './lib/running-instance';

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const out = path.resolve(process.argv[2] ?? path.join(process.env.DATA_DIR ?? '.data', 'backups', stamp));
try {
  const manifest = await backup({
    databaseUrl: databaseUrlOrExit(),
    media: createMediaStore(loadMediaSettings(mediaEnv())),
    out,
    log: (line) => console.log(line),
  });
  console.log(
    `Backup written to ${out}: database ${manifest.database.bytes} bytes, ${manifest.media.files} media files (${manifest.media.bytes} bytes).`,
  );
  console.log(`Restore with: npm run restore -- ${out}`);
  process.exit(0);
} catch (error) {
  console.error(`Backup failed: ${(error as Error).message}`);
  process.exit(1);
}
