import { describe, expect, it } from 'vitest';
import { pictureSrc, placeholderUrl } from './image-url';

describe('pictureSrc', () => {
  it('loads our own pictures as the server names them, never through a proxy URL of its own making', () => {
    expect(pictureSrc('/media/pictures/abc-512.webp', 'Zoe')).toBe('/media/pictures/abc-512.webp');
    // A media CDN (MEDIA_PUBLIC_URL): the page's CSP admits that origin only.
    expect(pictureSrc('https://cdn.example.com/media/pictures/abc-512.webp', 'Zoe')).toBe(
      'https://cdn.example.com/media/pictures/abc-512.webp',
    );
  });

  it('falls back to the placeholder for the name, the only proxy URL the client builds', () => {
    expect(pictureSrc(null, 'Zoe')).toBe(placeholderUrl('Zoe'));
    expect(placeholderUrl('Zoe')).toBe('/api/proxy/image?name=Zoe');
    expect(placeholderUrl(' The Moth\n')).toBe('/api/proxy/image?name=The+Moth');
    expect(placeholderUrl('')).toBe('/api/proxy/image?name=%3F');
  });
});
