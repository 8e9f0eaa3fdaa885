// Proves the import boundaries in biome.json bite: writes one forbidden import per boundary into a
// temporary file where it would be caught, runs `biome lint` on it, and expects an error. Run by the
// static test tier; by hand: `node --import tsx scripts/lint/boundary-probe.ts`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();
const biome = path.join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

interface Probe {
  /** Where the file goes (a directory the boundary covers). */
  dir: string;
  file: string;
  source: string;
}

export const PROBES: Probe[] = [
  { dir: 'worker/src', file: 'boundary-probe.ts', source: "import '@server/http/route';" },
  { dir: 'worker/src', file: 'boundary-probe.ts', source: "import '../../server/src/core/logger';" },
  { dir: 'worker/src', file: 'boundary-probe.ts', source: "import '@server/core/../features/feed/feed.service';" },
  { dir: 'server/src/core', file: 'boundary-probe.ts', source: "import '../http/errors';" },
  { dir: 'server/src/http', file: 'boundary-probe.ts', source: "import '../features/users/user.service';" },
  { dir: 'shared/src', file: 'boundary-probe.ts', source: "import '@server/core/logger';" },
  { dir: 'client/src/lib', file: 'boundary-probe.ts', source: "import '@server/core/logger';" },
  { dir: 'client/src/features/feed', file: 'boundary-probe.ts', source: "import '@/features/matches/match-card';" },
];

export function runProbes(): { probe: Probe; caught: boolean }[] {
  return PROBES.map((probe) => {
    const file = path.join(root, probe.dir, probe.file);
    fs.writeFileSync(file, `${probe.source}\n`);
    try {
      const result = spawnSync(process.execPath, [biome, 'lint', '--colors=off', file], { encoding: 'utf8' });
      const caught = result.status !== 0 && result.stdout.concat(result.stderr).includes('noRestrictedImports');
      return { probe, caught };
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = runProbes();
  for (const { probe, caught } of results) {
    console.log(`${caught ? 'refused' : 'ALLOWED'}  ${probe.dir}: ${probe.source}`);
  }
  process.exit(results.every((r) => r.caught) ? 0 : 1);
}
