import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger';

const ENTRY_NAME = /^[0-9a-f]{64}$/;

/**
 * Fetched images on disk, one file per key (a sha256 in hex), bounded by a total size: the least
 * recently used files go first. The index (key -> size, in use order) lives in memory and is
 * rebuilt from the directory on first use, ordered by modification time, which a hit refreshes.
 * Several servers may share the directory; each keeps its own index (a file another one evicted
 * is simply a miss).
 */
export class ImageDiskCache {
  /** Insertion order is use order: the first key is the least recently used. */
  private readonly entries = new Map<string, number>();
  private totalBytes = 0;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly logger: Logger,
  ) {}

  /** Bytes currently held (for tests and logs). */
  get bytes(): number {
    return this.totalBytes;
  }

  get count(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<Buffer | null> {
    await this.load();
    if (!this.entries.has(key)) return null;
    const file = this.file(key);
    try {
      const body = await readFile(file);
      this.touch(key, body.length);
      const now = new Date();
      utimes(file, now, now).catch(() => {});
      return body;
    } catch {
      this.forget(key);
      return null;
    }
  }

  async put(key: string, body: Buffer): Promise<void> {
    if (body.length > this.maxBytes) return;
    await this.load();
    const file = this.file(key);
    const temporary = `${file}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, body);
      await rename(temporary, file);
    } catch (error) {
      this.logger.warn('image cache: could not store an image', error);
      await unlink(temporary).catch(() => {});
      return;
    }
    this.forget(key);
    this.touch(key, body.length);
    await this.evict();
  }

  private file(key: string): string {
    if (!ENTRY_NAME.test(key)) throw new Error('bad image cache key');
    return path.join(this.dir, key);
  }

  private touch(key: string, size: number): void {
    this.forget(key);
    this.entries.set(key, size);
    this.totalBytes += size;
  }

  private forget(key: string): void {
    const size = this.entries.get(key);
    if (size === undefined) return;
    this.entries.delete(key);
    this.totalBytes -= size;
  }

  private async evict(): Promise<void> {
    while (this.totalBytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
      await unlink(this.file(oldest)).catch(() => {});
    }
  }

  private load(): Promise<void> {
    this.ready ??= this.scan().catch((error) => {
      this.ready = undefined; // tried again on the next use
      throw error;
    });
    return this.ready;
  }

  private async scan(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const found: { key: string; size: number; usedAt: number }[] = [];
    for (const name of await readdir(this.dir)) {
      const file = path.join(this.dir, name);
      if (name.endsWith('.tmp')) {
        await unlink(file).catch(() => {});
        continue;
      }
      if (!ENTRY_NAME.test(name)) continue;
      const info = await stat(file).catch(() => null);
      if (info?.isFile()) found.push({ key: name, size: info.size, usedAt: info.mtimeMs });
    }
    found.sort((a, b) => a.usedAt - b.usedAt);
    for (const entry of found) this.touch(entry.key, entry.size);
    await this.evict();
  }
}
