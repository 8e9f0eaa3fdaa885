import { describe, expect, it } from 'vitest';
import { imageSrc, placeholderUrl } from './image-url';

describe('imageSrc', () => {
  it('loads our own files directly and everything remote through the proxy', () => {
    expect(imageSrc('/media/pictures/abc-512.webp', 'Zoe')).toBe('/media/pictures/abc-512.webp');
    expect(imageSrc('https://cdn.example.com/a.jpg', 'Serial')).toBe(
      '/api/proxy/image?url=https%3A%2F%2Fcdn.example.com%2Fa.jpg&name=Serial',
    );
    // Protocol-relative is remote too.
    expect(imageSrc('//cdn.example.com/a.jpg', 'Serial')).toMatch(/^\/api\/proxy\/image\?url=/);
  });

  it('falls back to the placeholder for the name', () => {
    expect(imageSrc(null, 'Zoe')).toBe(placeholderUrl('Zoe'));
    expect(placeholderUrl('Zoe')).toBe('/api/proxy/image?name=Zoe');
  });
});
