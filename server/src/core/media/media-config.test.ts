// MEDIA_DRIVER and the S3 settings: what each combination builds, and what is refused at startup.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMediaSettings } from './media-config';

const s3 = { MEDIA_DRIVER: 's3', S3_BUCKET: 'podmatch-media' };

describe('media settings', () => {
  it('defaults to the local directory', () => {
    expect(loadMediaSettings({})).toEqual({ driver: 'local', dir: path.resolve('.data/media') });
    expect(loadMediaSettings({ MEDIA_DIR: '/srv/media' })).toEqual({ driver: 'local', dir: '/srv/media' });
  });

  it('builds AWS S3 settings with the default credential chain and region', () => {
    expect(loadMediaSettings(s3)).toEqual({
      driver: 's3',
      bucket: 'podmatch-media',
      region: 'us-east-1',
      endpoint: undefined,
      forcePathStyle: false,
      credentials: undefined,
      publicUrl: undefined,
    });
  });

  it('uses path-style addressing by default with an endpoint (MinIO), unless told otherwise', () => {
    const minio = { ...s3, S3_ENDPOINT: 'http://minio:9000/', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' };
    expect(loadMediaSettings(minio)).toMatchObject({
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(loadMediaSettings({ ...minio, S3_FORCE_PATH_STYLE: 'false' })).toMatchObject({ forcePathStyle: false });
    expect(loadMediaSettings({ ...s3, S3_FORCE_PATH_STYLE: 'true' })).toMatchObject({ forcePathStyle: true });
  });

  it('treats empty values as unset (an env file with blank lines)', () => {
    expect(
      loadMediaSettings({ ...s3, S3_ENDPOINT: '', S3_REGION: ' ', S3_ACCESS_KEY_ID: '', S3_SECRET_ACCESS_KEY: '' }),
    ).toMatchObject({ endpoint: undefined, region: 'us-east-1', credentials: undefined, forcePathStyle: false });
  });

  it('takes a public URL (CDN) without its trailing slash', () => {
    expect(loadMediaSettings({ ...s3, MEDIA_PUBLIC_URL: 'https://cdn.example.com/media/' })).toMatchObject({
      publicUrl: 'https://cdn.example.com/media',
    });
  });

  it.each([
    [{ MEDIA_DRIVER: 's3' }, 'S3_BUCKET: required when MEDIA_DRIVER=s3'],
    [{ MEDIA_DRIVER: 'gcs' }, 'MEDIA_DRIVER: use local (files under MEDIA_DIR) or s3 (a bucket)'],
    [{ ...s3, S3_BUCKET: 'Bad_Bucket' }, 'S3_BUCKET: a bucket name'],
    [{ ...s3, S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT: an http(s) URL'],
    [{ ...s3, S3_ENDPOINT: 'ftp://minio' }, 'S3_ENDPOINT: an http(s) URL'],
    [{ ...s3, S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE: use true or false'],
    [{ ...s3, S3_ACCESS_KEY_ID: 'id' }, 'S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY: set both, or neither'],
    [{ ...s3, S3_SECRET_ACCESS_KEY: 'secret' }, 'S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY: set both, or neither'],
    [{ ...s3, MEDIA_PUBLIC_URL: 'https://cdn.example.com/?v=1' }, 'MEDIA_PUBLIC_URL: an http(s) URL'],
    [{ MEDIA_PUBLIC_URL: 'https://cdn.example.com' }, 'MEDIA_PUBLIC_URL: only used with MEDIA_DRIVER=s3'],
  ])('refuses %j at startup', (env, message) => {
    expect(() => loadMediaSettings(env)).toThrow(message);
  });

  it('never prints the secret key in an error', () => {
    expect(() => loadMediaSettings({ ...s3, S3_BUCKET: '', S3_SECRET_ACCESS_KEY: 'TOP-SECRET' })).toThrow(
      /^(?![\s\S]*TOP-SECRET)/,
    );
  });
});
