// The deployment files (docs/operations.md, "Scaling out" and "Secrets"): docker-compose.yml holds
// no secret and pins every image, Redis refuses clients without its password, the app's S3 key is
// limited to its bucket, compose's PgBouncer pools in transaction mode behind the password, the
// image runs as a non-root user without .env inside, and HAProxy cuts off
// a client that trickles its headers. No Docker engine here: docker-compose (v1, Debian) resolves the
// compose file as `docker compose config` would, and the parts run for real where they can (Redis,
// PgBouncer, HAProxy, the MinIO setup script with a stand-in `mc`).
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUEUES } from '@shared/jobs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES } from '../scripts/build';
import { ensurePostgresUser, freePort } from '../scripts/lib/local-stack';
import { DEPLOY_CHECK_TOOLS, ensureDebianPackages } from '../scripts/lib/system-packages';
import { until } from '../server/src/test/harness';
import { testDatabaseUrl } from '../server/src/test/test-stack';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = (name: string) => path.join(root, name);
const COMPOSE = file('docker-compose.yml');

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML and JSON
type Json = any;

function run(command: string, args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result: SpawnSyncReturns<string> = spawnSync(command, args, {
    encoding: 'utf8',
    input: options.input,
    env: options.env ?? { PATH: process.env.PATH },
  });
  if (result.error) throw result.error;
  return result;
}

/** Stops a process this file started and waits for it (at once if it has exited). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  await exit;
}

/** YAML (with anchors and merge keys resolved) as JSON, read by Debian's PyYAML. */
function parseYaml(text: string): Json {
  const script = 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)';
  const result = run('/usr/bin/python3', ['-c', script], { input: text });
  if (result.status !== 0) throw new Error(`not YAML: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** `docker compose config` (docker-compose v1): the file resolved with this env file, nothing from our environment. */
function composeConfig(envFile: string) {
  return run('docker-compose', ['-f', COMPOSE, '--env-file', envFile, 'config']);
}

/** A fresh env file from deploy/make-env.sh, the way the docs make one, and its values. */
function makeEnvFile(dir: string): { path: string; values: Record<string, string> } {
  const target = path.join(dir, `env-${Math.random().toString(36).slice(2)}`);
  const made = run('sh', [file('deploy/make-env.sh'), target]);
  expect(made.status, made.stderr).toBe(0);
  const values = Object.fromEntries(
    fs
      .readFileSync(target, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z0-9_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { path: target, values };
}

/** Every string in a parsed document, with where it is. */
function strings(value: Json, at = ''): { at: string; text: string }[] {
  if (typeof value === 'string') return [{ at, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${at}.${k}`));
  return [];
}

/** The text without its comment lines. */
const uncommented = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n');

/** A service's bind mount at `target` (docker-compose v1 prints the short form, source:target:mode). */
function mountSource(service: Json, target: string): string {
  for (const volume of (service.volumes ?? []) as Json[]) {
    if (typeof volume === 'string') {
      const [source, at] = volume.split(':');
      if (at === target) return source as string;
    } else if (volume.target === target) return volume.source;
  }
  throw new Error(`no mount at ${target}`);
}

const REQUIRED = /^\$\{([A-Z0-9_]+):\?[^}]*\}$/;
/** A secret only some deployments have (ATPROTO_PRIVATE_KEY): the env file's value, else empty. */
const OPTIONAL = /^\$\{([A-Z0-9_]+):-\}$/;
const SECRET_NAME = /PASSWORD|SECRET|_KEY|TOKEN|AUTH/;
/** The password of a URL with user info (scheme://user:password@host), if any. */
const urlPassword = (text: string) => /^[a-z][a-z0-9+.-]*:\/\/[^/@:\s]*:([^@\s]+)@/i.exec(text)?.[1];

describe('deployment files', () => {
  let tmp: string;
  let raw: Json;
  let env: { path: string; values: Record<string, string> };
  let resolved: Json;

  beforeAll(() => {
    ensureDebianPackages(DEPLOY_CHECK_TOOLS, (line) => console.log(line));
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-deploy-'));
    raw = parseYaml(fs.readFileSync(COMPOSE, 'utf8'));
    env = makeEnvFile(tmp);
    const config = composeConfig(env.path);
    expect(config.status, config.stderr).toBe(0);
    resolved = parseYaml(config.stdout);
  });
  /** Processes a test started, stopped here too should the test end early. */
  const started: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map(stop));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const services = () => Object.entries(resolved.services as Record<string, Json>);
  /**
   * The running services of the app's image (the root Dockerfile); PgBouncer has an image of its own
   * and the backup tool (profile `tools`) runs only when asked.
   */
  const appServices = () =>
    services().filter(([, s]) => s.build && !s.profiles && path.resolve(String(s.build.context ?? s.build)) === root);

  it('docker-compose.yml holds no secret: every password and key is a required variable of the env file', () => {
    const literal: string[] = [];
    for (const [name, service] of Object.entries(raw.services as Record<string, Json>)) {
      for (const [key, value] of Object.entries((service.environment ?? {}) as Record<string, string>)) {
        if (SECRET_NAME.test(key) && !REQUIRED.test(String(value)) && !OPTIONAL.test(String(value)))
          literal.push(`${name}.environment.${key}`);
      }
    }
    for (const { at, text } of strings(raw)) {
      const password = urlPassword(text);
      if (password !== undefined && !REQUIRED.test(password)) literal.push(`${at}: a password in a URL`);
    }
    const redisCommand: string[] = raw.services.redis.command;
    const requirepass = redisCommand[redisCommand.indexOf('--requirepass') + 1] ?? '';
    if (!REQUIRED.test(requirepass)) literal.push('redis.command --requirepass');
    expect(literal).toEqual([]);

    // Resolved: every secret-named setting and URL password is one of the env file's values.
    const secrets = new Set(Object.values(env.values));
    for (const [name, service] of services()) {
      for (const [key, value] of Object.entries((service.environment ?? {}) as Record<string, string>)) {
        if (SECRET_NAME.test(key)) expect(secrets.has(value) || value === '', `${name}.${key}`).toBe(true);
      }
    }
    for (const { at, text } of strings(resolved)) {
      const password = urlPassword(text);
      if (password !== undefined) expect(secrets.has(password), at).toBe(true);
    }
  });

  it('the env file: make-env.sh makes each secret compose needs, fresh and private; without one compose stops', () => {
    const needed = [
      ...new Set(
        [...uncommented(fs.readFileSync(COMPOSE, 'utf8')).matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1] as string),
      ),
    ];
    expect(Object.keys(env.values).sort()).toEqual([...needed].sort());
    const values = Object.values(env.values);
    expect(new Set(values).size).toBe(values.length);
    for (const value of values) expect(value).toMatch(/^[a-z0-9-]{16,}$/);
    expect(fs.statSync(env.path).mode & 0o777).toBe(0o600);
    const again = makeEnvFile(tmp);
    for (const name of needed) expect(again.values[name]).not.toBe(env.values[name]);
    expect(run('sh', [file('deploy/make-env.sh'), env.path]).status).not.toBe(0);

    // .env.example documents each one.
    const example = fs.readFileSync(file('.env.example'), 'utf8');
    for (const name of needed) expect(example, name).toMatch(new RegExp(`^# ${name}=`, 'm'));

    for (const name of needed) {
      const partial = path.join(tmp, `without-${name}`);
      const lines = Object.entries(env.values).filter(([key]) => key !== name);
      fs.writeFileSync(partial, lines.map(([key, value]) => `${key}=${value}\n`).join(''));
      const result = composeConfig(partial);
      expect(result.status, name).not.toBe(0);
      expect(result.stderr).toContain(`set ${name} in .env`);
    }
    console.log(`deploy: ${needed.length} secrets from the env file (${needed.join(', ')})`);
  });

  it('every image is pinned to an exact version and digest, never :latest', () => {
    const pinned = /^[a-z0-9./-]+:(?<tag>[A-Za-z0-9._-]*\d[A-Za-z0-9._-]*)@sha256:[0-9a-f]{64}$/;
    const images: string[] = [];
    for (const [name, service] of services()) {
      if (service.build) continue;
      expect(service.image, name).toMatch(pinned);
      expect(pinned.exec(service.image)?.groups?.tag).not.toMatch(/latest/);
      images.push(service.image);
    }
    const from = ['Dockerfile', 'deploy/pgbouncer/Dockerfile'].flatMap((dockerfile) =>
      [...fs.readFileSync(file(dockerfile), 'utf8').matchAll(/^FROM\s+(\S+)/gim)].map((m) => m[1] as string),
    );
    expect(from.length).toBeGreaterThan(0);
    for (const image of from) expect(image).toMatch(pinned);
    console.log(`deploy: images ${[...images, ...from].map((i) => i.replace(/@sha256:.*/, '')).join(', ')}`);
  });

  it('Redis refuses clients without the password; the app, the health check and the sentinels have it', async () => {
    const redis = resolved.services.redis;
    const command: string[] = redis.command;
    expect(command[0]).toBe('redis-server');
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(tmp, 'redis-'));
    const child = spawn('redis-server', [...command.slice(1), '--port', String(port), '--dir', dir], {
      stdio: 'ignore',
    });
    started.push(child);
    const local = (text: string) => {
      const url = new URL(text);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    };
    const urls = new Set(appServices().map(([, s]) => s.environment.REDIS_URL as string));
    expect(urls.size).toBe(1);
    const app = new Redis(local([...urls][0] as string), { lazyConnect: true, maxRetriesPerRequest: 1 });
    const stranger = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
    for (const client of [app, stranger]) client.on('error', () => undefined);
    try {
      await until(() => app.ping().catch(() => null), 'redis with its password up', 10_000);
      // The attack: anyone who reaches the port, without the password.
      await expect(stranger.ping()).rejects.toThrow(/NOAUTH/);
      await expect(stranger.keys('*')).rejects.toThrow(/NOAUTH/);
      expect(await app.ping()).toBe('PONG');

      // The health check, its redis-cli pointed at this port: healthy with the container's
      // REDISCLI_AUTH, not without it.
      const [kind, check] = redis.healthcheck.test as string[];
      expect(kind).toBe('CMD-SHELL');
      const bin = fs.mkdtempSync(path.join(tmp, 'redis-cli-'));
      const realCli = run('sh', ['-c', 'command -v redis-cli']).stdout.trim();
      fs.writeFileSync(path.join(bin, 'redis-cli'), `#!/bin/sh\nexec ${realCli} -p ${port} "$@"\n`, { mode: 0o755 });
      const health = (auth: string | undefined) =>
        run('sh', ['-c', check as string], {
          env: { PATH: `${bin}:${process.env.PATH}`, ...(auth ? { REDISCLI_AUTH: auth } : {}) },
        }).status;
      expect(health(redis.environment.REDISCLI_AUTH)).toBe(0);
      expect(health(undefined)).not.toBe(0);
      expect(health('wrong')).not.toBe(0);

      // A sentinel as compose runs it (deploy/redis-sentinel.sh), pointed at this Redis: it logs in
      // with the password and reads the primary's role, and the app's settings name its sentinels.
      const sentinelPort = await freePort();
      const sentinelService = resolved.services['sentinel-1'];
      const sentinel = spawn('sh', [file('deploy/redis-sentinel.sh')], {
        env: {
          PATH: process.env.PATH,
          ...sentinelService.environment,
          REDIS_PRIMARY_HOST: '127.0.0.1',
          REDIS_PRIMARY_PORT: String(port),
          SENTINEL_PORT: String(sentinelPort),
          SENTINEL_CONF: path.join(dir, 'sentinel.conf'),
        },
        stdio: 'ignore',
      });
      started.push(sentinel);
      const asker = new Redis(sentinelPort, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
      asker.on('error', () => undefined);
      try {
        const seen = await until(async () => {
          const fields = (await asker.call('SENTINEL', 'master', 'podmatch').catch(() => null)) as string[] | null;
          const info = fields ? Object.fromEntries(fields.flatMap((v, i) => (i % 2 ? [] : [[v, fields[i + 1]]]))) : {};
          // Logged in: connected (a wrong password shows `disconnected`) and its INFO read (0: never).
          return info.flags === 'master' && Number(info['info-refresh']) > 0 ? info : null;
        }, 'the sentinel to log in to the primary');
        expect(seen.port).toBe(String(port));
      } finally {
        asker.disconnect();
        await stop(sentinel);
      }
      for (const [name, service] of appServices()) {
        expect(service.environment.REDIS_SENTINELS, name).toBe('sentinel-1:26379,sentinel-2:26379,sentinel-3:26379');
      }
      expect(Object.keys(resolved.services).filter((n) => n.startsWith('sentinel-'))).toHaveLength(3);
    } finally {
      app.disconnect();
      stranger.disconnect();
      await stop(child);
    }
  });

  it("the app's S3 key is its own, limited to the media bucket; only minio-setup uses the root account", () => {
    const rootUser = env.values.MINIO_ROOT_USER;
    const rootPassword = env.values.MINIO_ROOT_PASSWORD;
    for (const [name, service] of services()) {
      const values = strings(service).map((s) => s.text);
      const usesRoot = values.some((v) => v === rootUser || v === rootPassword || v.includes(rootPassword ?? '-'));
      expect(usesRoot, name).toBe(name === 'minio' || name === 'minio-setup');
    }
    const buckets = new Set(appServices().map(([, s]) => s.environment.S3_BUCKET as string));
    expect(buckets.size).toBe(1);
    const bucket = [...buckets][0] as string;
    for (const [name, service] of appServices()) {
      expect(service.environment.S3_ACCESS_KEY_ID, name).toBe(env.values.S3_ACCESS_KEY_ID);
      expect(service.environment.S3_ACCESS_KEY_ID).not.toBe(rootUser);
      // Servers and workers start once the bucket and their user exist (migrate does not use media).
      if (name !== 'migrate') {
        expect(service.depends_on['minio-setup']?.condition, name).toBe('service_completed_successfully');
      }
    }

    // The policy: objects and listing of that bucket, nothing else (no wildcard action, no admin).
    const setup = resolved.services['minio-setup'];
    const policyFile = mountSource(setup, '/policy.json');
    expect(path.relative(root, policyFile)).toBe('deploy/minio-media-policy.json');
    const policy = JSON.parse(fs.readFileSync(policyFile, 'utf8'));
    for (const statement of policy.Statement) {
      expect(statement.Effect).toBe('Allow');
      for (const action of statement.Action) expect(action).toMatch(/^s3:[A-Za-z]+$/);
      for (const resource of statement.Resource) {
        expect([`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`]).toContain(resource);
      }
    }
  });

  it('minio-setup makes the bucket, the policy and the user, passes the root password to `mc alias` only, and runs again', () => {
    const setup = resolved.services['minio-setup'];
    const script = mountSource(setup, '/minio-setup.sh');
    expect(path.relative(root, script)).toBe('deploy/minio-setup.sh');
    expect(setup.entrypoint).toEqual(['/bin/sh', '/minio-setup.sh']);
    // A stand-in `mc`: records its arguments; `attach` reports "already in effect" once attached.
    const bin = fs.mkdtempSync(path.join(tmp, 'mc-'));
    const log = path.join(bin, 'calls');
    fs.writeFileSync(
      path.join(bin, 'mc'),
      `#!/bin/sh
echo "$*" >> "${log}"
case "$*" in
  "admin policy attach "*)
    if [ -e "${bin}/attached" ]; then echo "mc: <ERROR> The specified policy change is already in effect." >&2; exit 1; fi
    if [ -n "\${MC_FAIL_ATTACH:-}" ]; then echo "mc: <ERROR> server down" >&2; exit 1; fi
    touch "${bin}/attached" ;;
esac
`,
      { mode: 0o755 },
    );
    const runSetup = (extra: Record<string, string> = {}) =>
      run('sh', [script], { env: { PATH: `${bin}:${process.env.PATH}`, ...setup.environment, ...extra } });
    const first = runSetup();
    expect(first.status, first.stderr).toBe(0);
    const calls = fs.readFileSync(log, 'utf8').trim().split('\n');
    const key = env.values.S3_ACCESS_KEY_ID;
    expect(calls).toEqual([
      `alias set local http://minio:9000 ${env.values.MINIO_ROOT_USER} ${env.values.MINIO_ROOT_PASSWORD}`,
      'mb --ignore-existing local/podmatch-media',
      'admin policy create local podmatch-media /policy.json',
      `admin user add local ${key} ${env.values.S3_SECRET_ACCESS_KEY}`,
      `admin policy attach local podmatch-media --user ${key}`,
    ]);
    expect(runSetup().status).toBe(0);
    fs.rmSync(path.join(bin, 'attached'));
    expect(runSetup({ MC_FAIL_ATTACH: '1' }).status).not.toBe(0);
    expect(runSetup({ S3_SECRET_ACCESS_KEY: '' }).status).not.toBe(0);
  });

  it('the image and every app service run a bundle of the production build with plain node, no TypeScript', () => {
    const bundles = Object.keys(BUNDLES).map((name) => `${name}.mjs`);
    const dockerfile = fs.readFileSync(file('Dockerfile'), 'utf8');
    const cmds = [...dockerfile.matchAll(/^CMD\s+(\[.*\])$/gm)].map((m) => JSON.parse(m[1] as string) as string[]);
    // The image is the last stage; the backup stage before it runs `node backup.mjs` (its entrypoint).
    expect(cmds.at(-1)).toEqual(['node', 'server.mjs']);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node"\]$/m);
    expect(bundles).toContain(cmds.at(0)?.[0]);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    for (const [name, service] of appServices()) {
      const command = service.command as string[];
      expect(command[0], name).toBe('node');
      expect(bundles, `${name} runs ${command.join(' ')}`).toContain(command[1]);
      expect(command.join(' '), name).not.toMatch(/tsx|\.ts\b/);
    }
  });

  it('every job queue is served by a compose worker role', () => {
    // A worker serves the queues of its WORKER_QUEUES, all of them when unset (worker/src/config.ts).
    const served = appServices()
      .filter(([, service]) => (service.command as string[])[1] === 'worker.mjs')
      .flatMap(([, service]) => {
        const queues = service.environment?.WORKER_QUEUES as string | undefined;
        return queues ? queues.split(',').map((queue) => queue.trim()) : Object.values(QUEUES);
      });
    for (const queue of Object.values(QUEUES)) expect(served, `a worker serving ${queue}`).toContain(queue);
  });

  it('the Prometheus files parse: five paging alerts, and a scrape of every app service on METRICS_PORT', () => {
    const alerts = parseYaml(fs.readFileSync(file('deploy/prometheus/alerts.yml'), 'utf8'));
    const rules = alerts.groups.flatMap((g: Json) => g.rules) as Json[];
    expect(rules.map((r) => r.alert)).toHaveLength(5);
    for (const rule of rules) {
      expect(rule.expr, rule.alert).toEqual(expect.any(String));
      expect(rule.labels.severity, rule.alert).toBe('page');
    }
    const scrape = parseYaml(fs.readFileSync(file('deploy/prometheus/prometheus.yml'), 'utf8'));
    const names = scrape.scrape_configs.flatMap((c: Json) => c.dns_sd_configs.flatMap((d: Json) => d.names));
    expect([...names].sort()).toEqual(
      appServices()
        .map(([name]) => name)
        .filter((n) => n !== 'migrate')
        .sort(),
    );
    for (const [name, service] of appServices()) expect(service.environment.METRICS_PORT, name).toBe('9100');
  });

  it('the image runs as a non-root user who owns only .data', () => {
    const lines = fs
      .readFileSync(file('Dockerfile'), 'utf8')
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((line) => /^[A-Z]+\s/.test(line));
    const users = lines.filter((line) => line.startsWith('USER '));
    const last = users.at(-1)?.split(/\s+/)[1] ?? 'root';
    expect(last).not.toMatch(/^(root|0)(:|$)/);
    const userAt = lines.lastIndexOf(users.at(-1) ?? '');
    expect(lines.slice(userAt + 1).some((line) => /^(RUN|COPY|ADD)\s/.test(line))).toBe(false);
    const chowns = lines.filter((line) => /chown|--chown/.test(line));
    expect(chowns).toHaveLength(1);
    expect(chowns[0]).toMatch(/chown node:node \.data$/);
  });

  it('.env never goes into the image or into git; .data never into the image', () => {
    // Docker's own .dockerignore rules (docker-py, shipped with docker-compose) on a sample context.
    const context = fs.mkdtempSync(path.join(tmp, 'context-'));
    for (const name of ['.env', '.env.production', '.env.example', '.data/media/x.webp', 'server/src/main.ts']) {
      fs.mkdirSync(path.dirname(path.join(context, name)), { recursive: true });
      fs.writeFileSync(path.join(context, name), 'x');
    }
    const patterns = fs
      .readFileSync(file('.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    const script =
      'import json, sys; from docker.utils.build import exclude_paths; ' +
      'print(json.dumps(sorted(exclude_paths(sys.argv[1], json.loads(sys.argv[2])))))';
    const included = JSON.parse(run('/usr/bin/python3', ['-c', script, context, JSON.stringify(patterns)]).stdout);
    expect(included).toContain('.env.example');
    expect(included).toContain('server/src/main.ts');
    for (const name of ['.env', '.env.production', '.data/media/x.webp']) expect(included).not.toContain(name);

    const ignored = run('git', ['-C', root, 'check-ignore', '--no-index', '.env', '.env.production', '.env.example']);
    expect(ignored.stdout.trim().split('\n')).toEqual(['.env', '.env.production']);
  });

  it("compose's PgBouncer (deploy/pgbouncer/entrypoint.sh) pools in transaction mode and checks the password", async () => {
    const upstream = new URL(testDatabaseUrl());
    const port = await freePort();
    // Not under this file's private temp directory: the postgres user must reach it.
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pm-compose-pgbouncer-'));
    // PgBouncer refuses to run as root; the image runs it as the postgres user.
    const runAs = process.getuid?.() === 0 ? ensurePostgresUser() : undefined;
    if (runAs) fs.chownSync(runDir, runAs.uid, runAs.gid);
    const child = spawn('sh', [file('deploy/pgbouncer/entrypoint.sh')], {
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
      env: {
        PATH: `/usr/sbin:${process.env.PATH}`,
        POSTGRES_USER: decodeURIComponent(upstream.username),
        POSTGRES_PASSWORD: decodeURIComponent(upstream.password),
        POSTGRES_HOST: upstream.hostname,
        POSTGRES_PORT: upstream.port,
        PGBOUNCER_RUN_DIR: runDir,
        PGBOUNCER_LISTEN_ADDR: '127.0.0.1',
        PGBOUNCER_PORT: String(port),
      },
      stdio: 'ignore',
    });
    started.push(child);
    const through = new URL(upstream);
    through.port = String(port);
    const query = async (url: URL, text: string) => {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(text)).rows;
      } finally {
        await client.end();
      }
    };
    const rows = await until(() => query(through, 'select 1 as one').catch(() => undefined), 'PgBouncer answers');
    expect(rows).toEqual([{ one: 1 }]);
    const ini = fs.readFileSync(path.join(runDir, 'pgbouncer.ini'), 'utf8');
    expect(ini).toMatch(/^pool_mode = transaction$/m);
    expect(ini).toMatch(/^auth_type = scram-sha-256$/m);
    const wrong = new URL(through);
    wrong.password = 'not-the-password';
    await expect(query(wrong, 'select 1')).rejects.toThrow(/authentication failed/);
    await stop(child);
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  it('haproxy -c accepts deploy/haproxy.cfg, and a client trickling its headers is cut off (timeout http-request)', async () => {
    const cfg = file('deploy/haproxy.cfg');
    const check = run('haproxy', ['-c', '-f', cfg]);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const defaults = fs
      .readFileSync(cfg, 'utf8')
      .split(/^(?=\S)/m)
      .find((section) => section.startsWith('defaults'));
    const limit = /^\s*timeout http-request (\d+)s$/m.exec(defaults ?? '');
    expect(limit, 'timeout http-request in defaults').not.toBeNull();
    const seconds = Number(limit?.[1]);
    expect(seconds).toBeLessThanOrEqual(15);

    // The same file, listening on a free local port instead of :8080.
    const port = await freePort();
    const local = path.join(tmp, 'haproxy.cfg');
    const text = fs.readFileSync(cfg, 'utf8');
    expect(text).toMatch(/^\s*bind :8080$/m);
    fs.writeFileSync(local, text.replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${port}`));
    const haproxy = spawn('haproxy', ['-db', '-f', local], { stdio: 'ignore' });
    started.push(haproxy);
    try {
      await until(
        () =>
          new Promise<boolean>((resolve) => {
            const probe = net.connect(port, '127.0.0.1', () => resolve(probe.destroy() !== undefined));
            probe.once('error', () => resolve(false));
          }),
        'haproxy listening',
        10_000,
      );
      // The attack: a request whose headers never end.
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: podmatch\r\n'));
      // Without the limit HAProxy would hold it for `timeout client` (60 s): give up well before.
      socket.setTimeout((seconds + 5) * 1000, () => socket.destroy());
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk;
      });
      await once(socket, 'close');
      const elapsed = Date.now() - started;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(elapsed).toBeGreaterThanOrEqual(seconds * 1000 - 500);
      expect(elapsed).toBeLessThan(seconds * 1000 + 3000);
      console.log(`deploy: haproxy closed a trickling request after ${elapsed} ms with 408`);
    } finally {
      await stop(haproxy);
    }
  }, 40_000);

  it('haproxy gives each request its own X-Request-Id, replacing one the client sent (docs/operations.md, "Logs")', async () => {
    // A stand-in for the servers, recording the ids it is sent.
    const seen: (string | string[] | undefined)[] = [];
    const backend = http.createServer((req, res) => {
      if (!req.url?.startsWith('/api/health')) seen.push(req.headers['x-request-id']);
      res.end('ok');
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const backendPort = (backend.address() as net.AddressInfo).port;
    // The same file on a free local port, its servers (found through Docker's DNS) this stand-in.
    const port = await freePort();
    const local = path.join(tmp, 'haproxy-ids.cfg');
    const text = fs.readFileSync(file('deploy/haproxy.cfg'), 'utf8');
    expect(text).toMatch(/^\s*server-template .*$/m);
    fs.writeFileSync(
      local,
      text
        .replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${port}`)
        .replace(/^(\s*)server-template .*$/m, `$1server local 127.0.0.1:${backendPort}`),
    );
    const haproxy = spawn('haproxy', ['-db', '-f', local], { stdio: 'ignore' });
    started.push(haproxy);
    try {
      const ask = (headers: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${port}/api/feed`, { headers }).then((res) => res.status);
      await until(
        () =>
          ask()
            .catch(() => 0)
            .then((status) => status === 200),
        'haproxy forwarding',
        10_000,
      );
      seen.length = 0;
      await ask({ 'X-Request-Id': 'forged-by-the-client' });
      await ask({ 'X-Request-Id': 'forged-by-the-client' });
      expect(seen).toHaveLength(2);
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      for (const id of seen) expect(id).toMatch(uuid);
      expect(seen[0]).not.toBe(seen[1]);
    } finally {
      await stop(haproxy);
      await new Promise((resolve) => backend.close(resolve));
    }
  }, 40_000);
});
