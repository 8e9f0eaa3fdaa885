// Private temporary directories of video jobs (docs/videos.md). Each is named after the worker's
// pid, so a worker starting up can delete what a killed one (SIGKILL, power loss) left behind.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@server/core/logger';

const DIR_NAME = /^(\d+)-[A-Za-z0-9-]+$/;

/** Creates `<root>/<pid>-<label>-<random>`; the caller deletes it with removeWorkDir, whatever happens. */
export async function createWorkDir(root: string, label: string): Promise<string> {
  await fs.mkdir(root, { recursive: true });
  const dir = path.join(
    root,
    `${process.pid}-${label.replace(/[^A-Za-z0-9-]/g, '')}-${randomBytes(4).toString('hex')}`,
  );
  await fs.mkdir(dir, { mode: 0o700 });
  return dir;
}

export async function removeWorkDir(dir: string): Promise<void> {
  // Retries if a file appears while it is being emptied (ENOTEMPTY), instead of leaving it behind.
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * At start, before any job runs: deletes work dirs whose worker is no longer running, and any
 * with this process's pid (a previous process that had the same pid, e.g. pid 1 in a container).
 * VIDEO_WORK_DIR must be local to the machine (pids mean nothing across machines).
 */
export async function sweepDeadWorkDirs(root: string, logger: Logger): Promise<number> {
  const entries = await fs.readdir(root).catch(() => [] as string[]);
  let removed = 0;
  for (const name of entries) {
    const pid = Number(DIR_NAME.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || (pid !== process.pid && isAlive(pid))) continue;
    await removeWorkDir(path.join(root, name));
    removed++;
  }
  if (removed > 0) logger.info(`removed ${removed} temporary video directories of stopped workers`);
  return removed;
}
