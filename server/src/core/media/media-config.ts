// MEDIA_DRIVER and its settings (docs/media.md), read the same way by the server and the worker so
// both build the same store from the same environment.
import path from 'node:path';
import { z } from 'zod';
import type { S3MediaSettings } from './s3-media-store';

/** An empty value (`S3_ENDPOINT=` in an env file) counts as unset. */
const blankAsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema);

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'use true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const httpUrl = (example: string) =>
  z
    .string()
    .trim()
    .refine((text) => {
      try {
        const url = new URL(text);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash && !url.username;
      } catch {
        return false;
      }
    }, `an http(s) URL without query, fragment or user name, e.g. ${example}`)
    .transform((text) => text.replace(/\/+$/, ''));

export const MediaEnvSchema = z.object({
  MEDIA_DRIVER: z
    .enum(['local', 's3'], { error: 'use local (files under MEDIA_DIR) or s3 (a bucket)' })
    .default('local'),
  MEDIA_DIR: z.string().default('.data/media'),
  S3_BUCKET: blankAsUnset(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens')
      .optional(),
  ),
  S3_REGION: blankAsUnset(
    z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/, 'a region name such as us-east-1')
      .default('us-east-1'),
  ),
  S3_ENDPOINT: blankAsUnset(httpUrl('http://minio:9000').optional()),
  S3_FORCE_PATH_STYLE: blankAsUnset(bool.optional()),
  S3_ACCESS_KEY_ID: blankAsUnset(z.string().optional()),
  S3_SECRET_ACCESS_KEY: blankAsUnset(z.string().optional()),
  MEDIA_PUBLIC_URL: blankAsUnset(httpUrl('https://cdn.example.com').optional()),
});

/** Which driver stores media (MEDIA_DRIVER), with its settings. */
export type MediaSettings =
  | {
      driver: 'local';
      /** The directory of the local driver (MEDIA_DIR). */
      dir: string;
    }
  | ({ driver: 's3' } & S3MediaSettings);

/** Reads MEDIA_DRIVER and the settings of that driver; a missing or bad setting stops the process. */
export function loadMediaSettings(env: NodeJS.ProcessEnv): MediaSettings {
  const parsed = MediaEnvSchema.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  if (parsed.success) {
    const e = parsed.data;
    if (e.MEDIA_DRIVER === 's3') {
      if (!e.S3_BUCKET) problems.push('  S3_BUCKET: required when MEDIA_DRIVER=s3');
      if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
        problems.push(
          '  S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY: set both, or neither (then the AWS default credential chain is used)',
        );
      }
    } else if (e.MEDIA_PUBLIC_URL) {
      problems.push('  MEDIA_PUBLIC_URL: only used with MEDIA_DRIVER=s3 (the server serves local media under /media)');
    }
  }
  if (!parsed.success || problems.length > 0) throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
  const e = parsed.data;
  if (e.MEDIA_DRIVER === 'local') return { driver: 'local', dir: path.resolve(e.MEDIA_DIR) };
  return {
    driver: 's3',
    bucket: e.S3_BUCKET as string,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    // S3-compatible servers (MinIO) usually have no per-bucket host names: path style by default there.
    forcePathStyle: e.S3_FORCE_PATH_STYLE ?? Boolean(e.S3_ENDPOINT),
    credentials:
      e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
        : undefined,
    publicUrl: e.MEDIA_PUBLIC_URL,
  };
}
