// A local S3-compatible server for the S3 media driver's tests: s3rver (npm), in this process on a
// free loopback port, speaking the S3 REST API (path-style buckets, ranges, multipart uploads).
// What it does not prove (it checks the access key id but not SigV4 signatures, has no IAM, no
// eventual consistency, no MinIO quirks) is listed in docs/media.md.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3MediaSettings } from '../core/media';

// The SDK warns once per process that its 2027 releases need Node 22; that is for operators, not tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** s3rver's built-in account. */
const ACCESS_KEY = 'S3RVER';

export interface S3StandIn {
  endpoint: string;
  bucket: string;
  /** The environment that selects this bucket (MEDIA_DRIVER=s3 and S3_*), for server and worker. */
  env: Record<string, string>;
  settings: S3MediaSettings;
  /** A plain client of the stand-in, to look into the bucket past the driver. */
  client: S3Client;
  /** Every key under `prefix`, sorted. */
  keys(prefix?: string): Promise<string[]>;
  /** An object's bytes and metadata, or null when missing. */
  object(key: string): Promise<{ body: Buffer; contentType?: string; cacheControl?: string } | null>;
  /** Stores any key as is (no key pattern), e.g. files the server must refuse to serve. */
  putRaw(key: string, body: string | Buffer, contentType?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startS3StandIn(bucket = 'podmatch-test'): Promise<S3StandIn> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const settings: S3MediaSettings = {
    bucket,
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
  };
  const client = new S3Client({
    ...settings,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    settings,
    client,
    env: {
      MEDIA_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
    },
    async keys(prefix = '') {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
    },
    async object(key) {
      try {
        const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return {
          body: Buffer.from((await got.Body?.transformToByteArray()) ?? []),
          contentType: got.ContentType,
          cacheControl: got.CacheControl,
        };
      } catch (error) {
        if ((error as Error).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    async putRaw(key, body, contentType = 'application/octet-stream') {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
    },
    async close() {
      client.destroy();
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
