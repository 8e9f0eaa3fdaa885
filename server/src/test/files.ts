import fs from 'node:fs/promises';
import path from 'node:path';

/** Every file under `dir` (dotfiles too, so a left-over temp file counts), relative to it, sorted. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}
