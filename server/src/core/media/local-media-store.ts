import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { assertMediaKey, isMediaKey, keyOfMediaUrl, MEDIA_URL_PREFIX, type MediaStore } from './media-store';

/**
 * Files in one directory on this machine (MEDIA_DIR), served by the server under /media
 * (server/src/serve-media.ts). Every server and worker must see the same directory.
 */
export class LocalMediaStore implements MediaStore {
  constructor(readonly root: string) {}

  /** The file of a key; the key pattern keeps it inside the root. */
  pathOf(key: string): string {
    assertMediaKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Written under a dotfile name (never served) and renamed: a reader sees all of it or nothing.
    const temp = path.join(path.dirname(target), `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      await fs.writeFile(temp, data, { flag: 'wx' });
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async putFile(key: string, file: string): Promise<void> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      // A rename when on the same disk; otherwise a copy. Either way readers see the whole file or none.
      await fs.rename(file, temp).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EXDEV') throw error;
        await fs.copyFile(file, temp);
        await fs.rm(file, { force: true });
      });
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async getFile(key: string, file: string): Promise<void> {
    await fs.copyFile(this.pathOf(key), file);
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async *list(): AsyncIterable<string> {
    const entries = await fs.readdir(this.root, { recursive: true, withFileTypes: true }).catch((error) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      // Temp files of writes in progress (`.tmp-*`) and anything else are not media keys.
      const key = path.relative(this.root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
      if (isMediaKey(key)) yield key;
    }
  }

  url(key: string): string {
    assertMediaKey(key);
    return `${MEDIA_URL_PREFIX}${key}`;
  }

  keyOf(url: string): string | null {
    return keyOfMediaUrl(url);
  }
}
