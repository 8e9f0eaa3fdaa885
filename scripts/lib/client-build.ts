import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the build reads. */
const SOURCES = [
  'client/src',
  'client/index.html',
  'client/vite.config.ts',
  'client/public',
  'shared/src',
  'package-lock.json',
];
/** Served as they are: a file removed from here changes the build with no other file changing. */
const COPIED_AS_IS = 'client/public';

/**
 * The newest file under `target`, and with `countDirectories` the newest directory too (a file
 * added or removed). Source directories' own times do not count: the static tier's boundary probe
 * (scripts/lint/boundary-probe.ts) adds and removes a file there, which changed no source but made
 * every later check rebuild client/dist under whatever was serving it; a source removed there also
 * changes the file that imported it.
 */
function newestMtime(target: string, countDirectories: boolean): number {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = countDirectories ? stat.mtimeMs : 0;
  for (const entry of fs.readdirSync(target)) {
    newest = Math.max(newest, newestMtime(path.join(target, entry), countDirectories));
  }
  return newest;
}

/** Builds the client with Vite (which prints each chunk's gzip size), into client/dist or `outDir`. */
export function buildClient(root: string, outDir?: string): void {
  const result = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'client/vite.config.ts',
      ...(outDir ? ['--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'] : []),
    ],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) throw new Error('Building the client failed; see the output above.');
}

/** Builds the client (into client/dist or `outDir`) only when a source is newer than the last build. */
export function buildClientIfStale(root: string, log: (line: string) => void, outDir?: string): void {
  const built = path.join(outDir ?? path.join(root, 'client/dist'), 'index.html');
  const builtAt = fs.statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sourcesAt = Math.max(...SOURCES.map((s) => newestMtime(path.join(root, s), s === COPIED_AS_IS)));
  if (builtAt > sourcesAt) {
    log('Client build is up to date');
    return;
  }
  log(`Building the client${outDir ? ` into ${path.relative(root, outDir)}` : ''}...`);
  buildClient(root, outDir);
}
