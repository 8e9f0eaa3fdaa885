import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** Installs Debian packages when a needed binary is missing and we may (root with apt-get). */
export function ensureDebianPackages(
  needs: { binary: string; packages: string[] }[],
  log: (line: string) => void,
): void {
  const missing = needs.filter((n) => !fs.existsSync(n.binary));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.flatMap((m) => m.packages))];
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !fs.existsSync('/usr/bin/apt-get')) {
    throw new Error(
      `Missing ${missing.map((m) => m.binary).join(', ')}. Install with: sudo apt-get install -y ${packages.join(' ')}`,
    );
  }
  log(`Installing ${packages.join(' ')} with apt-get...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Test files install what they need side by side: wait for another apt-get's lock, do not fail on it.
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  const install = () =>
    spawnSync('apt-get', [...lock, 'install', '-y', '-q', '--no-install-recommends', ...packages], {
      stdio: 'inherit',
      env,
    });
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', [...lock, 'update', '-q'], { stdio: 'inherit', env });
    result = install();
  }
  if (result.status !== 0) throw new Error(`apt-get install ${packages.join(' ')} failed; see the output above.`);
}

/** What video intros need (docs/videos.md): ffmpeg and ffprobe, the narration voice, the font of the slides. */
export const VIDEO_TOOLS = [
  { binary: process.env.FFMPEG_PATH ?? '/usr/bin/ffmpeg', packages: ['ffmpeg'] },
  { binary: process.env.FFPROBE_PATH ?? '/usr/bin/ffprobe', packages: ['ffmpeg'] },
  { binary: process.env.ESPEAK_PATH ?? '/usr/bin/espeak-ng', packages: ['espeak-ng'] },
  { binary: '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', packages: ['fonts-dejavu-core'] },
];

/**
 * What the deployment-file checks run (deploy/deploy-files.test.ts): HAProxy to check and run
 * deploy/haproxy.cfg, PgBouncer to run compose's pooler (deploy/pgbouncer/entrypoint.sh), docker-compose to resolve docker-compose.yml without a Docker engine (its
 * Python library also applies .dockerignore), and Debian's Python with YAML to read both.
 */
export const DEPLOY_CHECK_TOOLS = [
  { binary: '/usr/sbin/haproxy', packages: ['haproxy'] },
  { binary: '/usr/sbin/pgbouncer', packages: ['pgbouncer'] },
  { binary: '/usr/bin/docker-compose', packages: ['docker-compose'] },
  { binary: '/usr/lib/python3/dist-packages/yaml/__init__.py', packages: ['python3-yaml'] },
];

/**
 * The backup round trip (deploy/backup.test.ts) runs on Debian's PostgreSQL, whose pg_dump and
 * pg_restore match it (the embedded cluster is newer than any pg_dump Debian 12 has).
 */
export const DEBIAN_POSTGRES_VERSION = 15;
export const DEBIAN_POSTGRES_TOOLS = [
  {
    binary: `/usr/lib/postgresql/${DEBIAN_POSTGRES_VERSION}/bin/postgres`,
    packages: [`postgresql-${DEBIAN_POSTGRES_VERSION}`],
  },
];

/** The Sentinel failover test (worker/src/redis-sentinel.test.ts): three sentinels beside redis-server. */
export const SENTINEL_TOOLS = [{ binary: '/usr/bin/redis-sentinel', packages: ['redis-sentinel'] }];
