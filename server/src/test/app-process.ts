// Real server processes for the fault tests (docs/operations.md, "Faults"): `node server/src/main.ts`
// with the test environment plus `env`, resolved once it answers /api/health.
import { type ChildProcess, spawn } from 'node:child_process';
import { testEnv, until } from './harness';

/** Resolves with the exit code once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Starts a server process on `port`; its last output is kept for the error if it dies starting. */
export async function startServerProcess(port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    env: { ...process.env, ...testEnv({ PORT: String(port), LOG_LEVEL: 'error', TRUST_PROXY: 'loopback', ...env }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    output = (output + chunk).slice(-4000);
  });
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`a server process exited while starting: ${output}`);
    return fetch(`http://127.0.0.1:${port}/api/health`).then(
      () => true,
      () => false,
    );
  }, 'the server process to listen');
  return child;
}
