// POST /api/users/:userId/profile-picture against a real server, with a media directory of its own
// so every test can check that nothing was stored for a refusal and no old file was left behind.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { LIMITS, PICTURE_UPLOAD_TEXTS } from '@shared/index';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from '../../test/files';
import { nextEvent, startTestServer, type TestServer } from '../../test/harness';

const PICTURE_URL = /^\/media\/pictures\/[A-Za-z0-9_-]{22}-512\.webp$/;

/** A PNG whose header declares `width` x `height` but whose data is a few bytes (a pixel flood). */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A photo with a camera make and a GPS position in its EXIF. */
async function jpegWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 320, height: 240, channels: 3, background: '#3465a4' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'PodMatchCam', Model: 'Spy 3000' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '51/1 30/1 2600/100',
        GPSLongitudeRef: 'W',
        GPSLongitude: '0/1 7/1 3900/100',
      },
    })
    .toBuffer();
}

describe('profile picture upload', () => {
  let server: TestServer;
  let mediaDir: string;
  beforeAll(async () => {
    mediaDir = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-media-'));
    server = await startTestServer({ MEDIA_DIR: mediaDir });
  });
  afterAll(async () => {
    await server.close();
    await fs.rm(mediaDir, { recursive: true, force: true });
  });

  function upload(
    userId: number,
    token: string | undefined,
    bytes: Buffer,
    { name = 'me.jpg', type = 'image/jpeg', field = 'profilePicture' } = {},
  ) {
    const form = new FormData();
    form.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
    return server.call('POST', `/api/users/${userId}/profile-picture`, { token, form });
  }

  /** The picture as the browser gets it, decoded. */
  async function served(url: string) {
    const res = await fetch(`${server.url}${url}`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    return { res, bytes, meta: await sharp(bytes).metadata() };
  }

  it('stores the picture in the app sizes, answers its URL and tells every tab', async () => {
    const { token, user } = await server.login();
    const socket = await server.socket(token);
    const updated = nextEvent(socket, 'user:updated');
    const res = await upload(user.id, token, await jpegWithGps());
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ profilePicture: expect.stringMatching(PICTURE_URL) });
    const url = res.json.profilePicture as string;
    const [event] = await updated;
    expect(event).toMatchObject({ id: user.id, profilePicture: url });
    expect((await server.call('GET', `/api/users/${user.id}`, { token })).json.profilePicture).toBe(url);

    const large = await served(url);
    expect(large.res.headers.get('content-type')).toBe('image/webp');
    expect(large.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect([large.meta.format, large.meta.width, large.meta.height]).toEqual(['webp', 512, 512]);
    const small = await served(url.replace('-512.webp', '-128.webp'));
    expect([small.meta.format, small.meta.width, small.meta.height]).toEqual(['webp', 128, 128]);
  });

  it('serves an uploaded photo without its EXIF and GPS metadata', async () => {
    const { token, user } = await server.login();
    const photo = await jpegWithGps();
    // The fixture really carries them (so this test can fail).
    const before = await sharp(photo).metadata();
    expect(before.exif?.toString('latin1')).toContain('PodMatchCam');
    // The GPSInfo IFD pointer (tag 0x8825), big- or little-endian.
    const exif = before.exif ?? Buffer.alloc(0);
    expect(exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]))).toBe(true);

    const res = await upload(user.id, token, photo);
    expect(res.status, res.text).toBe(200);
    for (const size of ['512', '128']) {
      const { bytes, meta } = await served(res.json.profilePicture.replace('-512.webp', `-${size}.webp`));
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(bytes.includes(Buffer.from('PodMatchCam'))).toBe(false);
      expect(bytes.includes(Buffer.from('EXIF'))).toBe(false);
    }
  });

  it('applies the EXIF orientation', async () => {
    const { token, user } = await server.login();
    // Left half red, right half blue, stored sideways: orientation 6 means "turn 90 degrees clockwise
    // to show", which puts the left half on top.
    const halves = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0000ff' } })
      .composite([
        {
          input: await sharp({ create: { width: 32, height: 64, channels: 3, background: '#ff0000' } })
            .png()
            .toBuffer(),
          left: 0,
          top: 0,
        },
      ])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(halves).metadata()).orientation).toBe(6);

    const res = await upload(user.id, token, halves);
    expect(res.status, res.text).toBe(200);
    const { bytes } = await served(res.json.profilePicture);
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    const isRed = ([r, g, b]: number[]) => (r ?? 0) > 180 && (g ?? 0) < 80 && (b ?? 0) < 80;
    const isBlue = ([r, g, b]: number[]) => (b ?? 0) > 180 && (r ?? 0) < 80 && (g ?? 0) < 80;
    // Top right red and bottom left blue: only true once turned (unturned, they are the other way).
    expect(isRed(pixel(448, 64)), String(pixel(448, 64))).toBe(true);
    expect(isBlue(pixel(64, 448)), String(pixel(64, 448))).toBe(true);
  });

  it('replaces the previous picture and deletes its files', async () => {
    const { token, user } = await server.login();
    const first = await upload(user.id, token, await jpegWithGps());
    const second = await upload(user.id, token, await jpegWithGps());
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.json.profilePicture).not.toBe(first.json.profilePicture);
    for (const size of ['512', '128']) {
      const old = await fetch(`${server.url}${first.json.profilePicture.replace('-512.webp', `-${size}.webp`)}`);
      expect(old.status).toBe(404);
    }
    expect((await fetch(`${server.url}${second.json.profilePicture}`)).status).toBe(200);
  });

  describe('refusals store nothing', () => {
    const cases: [
      string,
      () => Promise<Parameters<typeof upload>[2]>,
      { name?: string; type?: string },
      number,
      string,
    ][] = [
      [
        'one byte over 5 MB',
        async () => {
          const big = Buffer.alloc(LIMITS.pictureMaxBytes + 1, 0);
          big.set([0xff, 0xd8, 0xff, 0xe0]);
          return big;
        },
        {},
        413,
        PICTURE_UPLOAD_TEXTS.tooLarge,
      ],
      [
        'an HTML file renamed .jpg and declared image/jpeg',
        async () => Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>'),
        { name: 'cat.jpg', type: 'image/jpeg' },
        415,
        PICTURE_UPLOAD_TEXTS.notAnImage,
      ],
      [
        'an SVG',
        async () =>
          Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>',
          ),
        { name: 'me.svg', type: 'image/svg+xml' },
        415,
        PICTURE_UPLOAD_TEXTS.notAnImage,
      ],
      [
        'a PNG header declaring 30000 x 30000 pixels',
        async () => pngDeclaring(30_000, 30_000),
        { name: 'flood.png', type: 'image/png' },
        413,
        PICTURE_UPLOAD_TEXTS.tooManyPixels,
      ],
      [
        'a real 7000 x 6000 image (42 megapixels, a few kilobytes compressed)',
        async () =>
          sharp({ create: { width: 7000, height: 6000, channels: 3, background: '#ffffff' } })
            .png({ compressionLevel: 9 })
            .toBuffer(),
        { name: 'flood.png', type: 'image/png' },
        413,
        PICTURE_UPLOAD_TEXTS.tooManyPixels,
      ],
      [
        'a truncated JPEG',
        async () => {
          const photo = await sharp({
            create: {
              width: 256,
              height: 256,
              channels: 3,
              background: '#808080',
              noise: { type: 'gaussian', mean: 128, sigma: 40 },
            },
          })
            .jpeg()
            .toBuffer();
          return photo.subarray(0, Math.floor(photo.length / 2));
        },
        {},
        400,
        PICTURE_UPLOAD_TEXTS.unreadable,
      ],
      [
        'JPEG magic bytes followed by garbage',
        async () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)]),
        {},
        400,
        PICTURE_UPLOAD_TEXTS.unreadable,
      ],
      ['an empty file', async () => Buffer.alloc(0), {}, 415, PICTURE_UPLOAD_TEXTS.notAnImage],
    ];

    for (const [what, make, declared, status, message] of cases) {
      it(`${what} -> ${status}`, async () => {
        const { token, user } = await server.login();
        const bytes = await make();
        const before = await filesUnder(mediaDir);
        const res = await upload(user.id, token, bytes, declared);
        expect(res.status, res.text).toBe(status);
        expect(res.json.message).toBe(message);
        expect(await filesUnder(mediaDir)).toEqual(before);
        expect((await server.call('GET', `/api/users/${user.id}`, { token })).json.profilePicture).toBeNull();
      });
    }

    it('a request without the file, or with it in another field -> 400', async () => {
      const { token, user } = await server.login();
      const photo = await jpegWithGps();
      const wrongField = await upload(user.id, token, photo, { field: 'picture' });
      expect(wrongField.status).toBe(400);
      const none = await server.call('POST', `/api/users/${user.id}/profile-picture`, { token, form: new FormData() });
      expect([none.status, none.json.message]).toEqual([400, PICTURE_UPLOAD_TEXTS.missing]);
    });

    it("someone else's account -> 403, signed out -> 401, and nothing is stored for either", async () => {
      const owner = await server.login();
      const other = await server.login();
      const photo = await jpegWithGps();
      const before = await filesUnder(mediaDir);
      const theirs = await upload(owner.user.id, other.token, photo);
      expect(theirs.status).toBe(403);
      const anonymous = await upload(owner.user.id, undefined, photo);
      expect(anonymous.status).toBe(401);
      expect(await filesUnder(mediaDir)).toEqual(before);
      const res = await server.call('GET', `/api/users/${owner.user.id}`, { token: owner.token });
      expect(res.json.profilePicture).toBeNull();
    });
  });

  it('30 people uploading three pictures each at once (well above the pool of 10): one current picture each, no orphans', async () => {
    const people = await Promise.all(Array.from({ length: 30 }, () => server.login()));
    const photo = await jpegWithGps();
    const before = await filesUnder(mediaDir);
    const answers = await Promise.all(
      people.flatMap(({ token, user }) => [1, 2, 3].map(() => upload(user.id, token, photo))),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));

    const current = await Promise.all(
      people.map(async ({ token, user }) => {
        const res = await server.call('GET', `/api/users/${user.id}`, { token });
        return res.json.profilePicture as string;
      }),
    );
    expect(new Set(current).size).toBe(30);
    const expected = current.flatMap((url) => {
      const key = url.slice('/media/'.length);
      return [key, key.replace('-512.webp', '-128.webp')];
    });
    const added = (await filesUnder(mediaDir)).filter((file) => !before.includes(file));
    expect(added.sort()).toEqual(expected.sort());
  });
});
