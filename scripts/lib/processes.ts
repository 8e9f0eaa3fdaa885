// Child processes of the launcher: the server and the worker, run with tsx (or a bundle of the
// production build, with plain node), plus clean-up of processes a previous run left behind (if it
// was killed before it could stop them).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stopChild } from './local-stack';

export interface AppProcess {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The entry point of each process the launcher and the test runner start. */
const ENTRIES = {
  server: 'server/src/main.ts',
  // The production build's server (scripts/build.ts), as the test runner builds it for the browser tests.
  'server-bundle': '.data/test/dist/server.mjs',
  worker: 'worker/src/main.ts',
  'spotify-stand-in': 'scripts/spotify-stand-in.ts',
  'bluesky-stand-in': 'scripts/bluesky-stand-in.ts',
  'smtp-stand-in': 'scripts/smtp-stand-in.ts',
} as const;

/**
 * Starts `node --import tsx <entry>` (`node <entry>` for a bundle) and prefixes its output lines with
 * its name. `name` names the process in output and its pid file when several of one kind run (server-2).
 */
export function startAppProcess(
  entry: keyof typeof ENTRIES,
  env: NodeJS.ProcessEnv,
  runDir: string,
  name: string = entry,
): AppProcess {
  const file = ENTRIES[entry];
  const child = spawn(process.execPath, file.endsWith('.mjs') ? [file] : ['--import', 'tsx', file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only the launcher, which stops children in order.
    detached: true,
  });
  prefixLines(child.stdout, process.stdout, name);
  prefixLines(child.stderr, process.stderr, name);
  fs.mkdirSync(runDir, { recursive: true });
  const pidFile = path.join(runDir, `${name}.pid`);
  if (child.pid) fs.writeFileSync(pidFile, String(child.pid));
  child.once('exit', () => fs.rmSync(pidFile, { force: true }));
  return {
    name,
    child,
    stop: () => stopChild(child, 'SIGTERM', name, (line) => console.log(`[launcher] ${line}`), 30_000),
  };
}

function prefixLines(from: NodeJS.ReadableStream | null, to: NodeJS.WritableStream, name: string): void {
  if (!from) return;
  let buffer = '';
  from.setEncoding('utf8');
  from.on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) to.write(`[${name}] ${line}\n`);
  });
  from.on('end', () => {
    if (buffer) to.write(`[${name}] ${buffer}\n`);
  });
}

/** Stops server/worker processes recorded by an earlier run that did not shut down. */
export async function reapStaleAppProcesses(runDir: string): Promise<void> {
  if (!fs.existsSync(runDir)) return;
  for (const file of fs.readdirSync(runDir).filter((f) => f.endsWith('.pid'))) {
    let pid = 0;
    try {
      pid = Number(fs.readFileSync(path.join(runDir, file), 'utf8'));
    } catch {
      continue; // removed meanwhile by the process that owned it
    }
    if (pid > 0 && isAlive(pid)) {
      console.log(`[launcher] stopping ${file.replace('.pid', '')} (pid ${pid}) left by an earlier run`);
      await killAndWait(pid, 'SIGTERM');
    }
    fs.rmSync(path.join(runDir, file), { force: true });
  }
}

export async function killAndWait(pid: number, signal: NodeJS.Signals, timeoutMs = 15_000): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

export async function waitForHealthy(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}) while starting`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return;
      last = await res.text();
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the app did not become healthy within ${timeoutMs / 1000}s: ${last}`);
}
