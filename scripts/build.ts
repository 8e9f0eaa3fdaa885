// `npm run build`: the production build (docs/operations.md, "The production build").
//   client/dist   the client (Vite), as `npm start` serves it
//   dist/         the server, the worker and the operator commands (migrate, admin), each bundled
//                 with esbuild into one ES module run with plain `node` (no TypeScript at runtime),
//                 plus the client, package.json and package-lock.json: with `npm ci --omit=dev` in
//                 it, dist/ is the whole app (the Dockerfile's runtime stage is exactly that).
// Packages stay outside the bundles: they are the production dependencies of package.json, and a
// bundle that imports anything else (a development dependency, a test helper) fails the build.
// `--skip-client`: reuse client/dist as it is (the bundle test, when the client is already built).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { buildClient } from './lib/client-build';

const root = path.resolve('.');

/** What `dist/` runs: name -> source. The scoring thread is loaded by file name (full-recompute.ts). */
export const BUNDLES = {
  server: 'server/src/main.ts',
  worker: 'worker/src/main.ts',
  migrate: 'scripts/migrate.ts',
  admin: 'scripts/admin.ts',
  backup: 'scripts/backup.ts',
  restore: 'scripts/restore.ts',
  'score-people.thread': 'server/src/core/matching/score-people.thread.ts',
} as const;

/** The packages a metafile's bundles import (bare specifiers, without subpaths or node: builtins). */
function importedPackages(metafile: Metafile): Set<string> {
  const packages = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (!imported.external || imported.path.startsWith('node:') || imported.path.startsWith('.')) continue;
      const parts = imported.path.split('/');
      packages.add(imported.path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
    }
  }
  return packages;
}

/**
 * Bundles `names` (default: all of BUNDLES) into `out` as `<name>.mjs` with esbuild: one file per
 * entry, packages left to node_modules (found from `out` upwards, or installed beside it).
 */
export async function bundleApp(
  out: string,
  names: (keyof typeof BUNDLES)[] = Object.keys(BUNDLES) as (keyof typeof BUNDLES)[],
): Promise<Metafile> {
  const result = await build({
    entryPoints: Object.fromEntries(names.map((name) => [name, path.join(root, BUNDLES[name])])),
    outdir: out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // One file per entry, no shared chunks: code that loads a file by `new URL('./x',
    // import.meta.url)` (the scoring thread) then finds it beside the entry.
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    // Bundled CommonJS-style code (none of ours, but a dependency's helper may be) finds `require`.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return result.metafile;
}

/** Builds into `out` (default dist/); the production packages the bundles import. */
export async function buildProduction({
  out = path.join(root, 'dist'),
  skipClient = false,
}: {
  out?: string;
  skipClient?: boolean;
} = {}): Promise<{ packages: string[] }> {
  if (!skipClient || !fs.existsSync(path.join(root, 'client/dist/index.html'))) buildClient(root);
  fs.rmSync(out, { recursive: true, force: true });
  const metafile = await bundleApp(out);

  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const packages = [...importedPackages(metafile)].sort();
  const notProduction = packages.filter((name) => !(name in manifest.dependencies));
  if (notProduction.length > 0) {
    throw new Error(
      `The bundles import packages that are not production dependencies: ${notProduction.join(', ')}. ` +
        'Move them to "dependencies" in package.json, or keep them out of the server and worker code.',
    );
  }
  for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
    fs.copyFileSync(path.join(root, file), path.join(out, file));
  }
  fs.cpSync(path.join(root, 'client/dist'), path.join(out, 'client/dist'), { recursive: true });
  return { packages };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const out = path.join(root, 'dist');
  const { packages } = await buildProduction({ out, skipClient: process.argv.includes('--skip-client') });
  const size = (dir: string): number =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .reduce(
        (n, e) => n + (e.isDirectory() ? size(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size),
        0,
      );
  console.log(
    `Built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s (${(size(out) / 1024 / 1024).toFixed(1)} MiB; ` +
      `${packages.length} production packages imported). Run it: cd dist && npm ci --omit=dev && node server.mjs`,
  );
}
