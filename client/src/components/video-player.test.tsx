import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { hostedPlayerUrl, hostedVideoId, VideoPlayer } from './video-player';

describe('hostedVideoId (SPEC section 2: the three video-hosting link forms)', () => {
  it.each([
    ['https://vimeo.com/123456789', '123456789'],
    ['https://player.vimeo.com/video/123456789', '123456789'],
    ['https://vimeo.com/123456789?share=copy', '123456789'],
    ['http://www.vimeo.com/42', '42'],
    ['https://player.vimeo.com/video/76979871?h=8272103f6e', '76979871'],
  ])('%s has the id %s', (link, id) => {
    expect(hostedVideoId(link)).toBe(id);
  });

  it.each([
    ['an mp4 file', 'https://cdn.example.org/intro.mp4'],
    ['our own media', '/media/videos/abc.mp4'],
    ['a non-numeric Vimeo path', 'https://vimeo.com/channels/staffpicks'],
    ['digits followed by letters', 'https://vimeo.com/123abc'],
    ['a player link without /video/', 'https://player.vimeo.com/123456789'],
    ['a look-alike host', 'https://vimeo.com.example.org/123456789'],
    ['Vimeo in the path of another host', 'https://example.org/vimeo.com/123456789'],
    ['another scheme', 'ftp://vimeo.com/123456789'],
    ['not a URL', 'vimeo 123456789'],
  ])('%s is not a hosted video', (_label, link) => {
    expect(hostedVideoId(link)).toBeNull();
  });

  it('an empty or missing link is not one either', () => {
    expect(hostedVideoId('')).toBeNull();
    expect(hostedVideoId(null)).toBeNull();
    expect(hostedVideoId(undefined)).toBeNull();
  });
});

describe('VideoPlayer', () => {
  // happy-dom refuses to load frames and logs a NotSupportedError for each: expected noise here.
  it('plays a Vimeo link embedded with autoplay, loop and muted by default, and names the frame', () => {
    render(<VideoPlayer src="https://vimeo.com/123456789?share=copy" data-testid="player" />);
    const frame = screen.getByTitle('Video intro');
    expect(frame.tagName).toBe('IFRAME');
    const url = new URL(frame.getAttribute('src') ?? '');
    expect(url.origin + url.pathname).toBe('https://player.vimeo.com/video/123456789');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ autoplay: '1', loop: '1', muted: '1', controls: '0' });
    expect(frame.getAttribute('allow')).toContain('autoplay');
    expect(screen.getByTestId('player')).toBe(frame);
  });

  it('passes its options to the embedded player', () => {
    expect(hostedPlayerUrl('7', { autoPlay: false, loop: false, muted: false, controls: true })).toMatch(
      /^https:\/\/player\.vimeo\.com\/video\/7\?autoplay=0&loop=0&muted=0&controls=1/,
    );
    render(<VideoPlayer src="https://player.vimeo.com/video/7" controls autoPlay={false} title="Ada's intro" />);
    const url = new URL(screen.getByTitle("Ada's intro").getAttribute('src') ?? '');
    expect(url.searchParams.get('controls')).toBe('1');
    expect(url.searchParams.get('autoplay')).toBe('0');
  });

  it('plays any other link in an inline native video with the defaults', () => {
    const { container } = render(
      <VideoPlayer src="/media/intro.mp4" poster="/media/poster.webp" className="size-full" />,
    );
    const video = container.querySelector('video');
    expect(video).not.toBeNull();
    expect(container.querySelector('iframe')).toBeNull();
    expect(video?.getAttribute('src')).toBe('/media/intro.mp4');
    expect(video?.getAttribute('poster')).toBe('/media/poster.webp');
    expect(video?.hasAttribute('playsinline')).toBe(true);
    expect(video?.autoplay).toBe(true);
    expect(video?.loop).toBe(true);
    expect(video?.muted).toBe(true);
    expect(video?.controls).toBe(false);
    expect(video?.className).toBe('size-full');
  });

  it('honours loop, muted and controls when turned around', () => {
    const { container } = render(
      <VideoPlayer src="/media/intro.mp4" autoPlay={false} loop={false} muted={false} controls />,
    );
    const video = container.querySelector('video');
    expect(video?.autoplay).toBe(false);
    expect(video?.loop).toBe(false);
    expect(video?.muted).toBe(false);
    expect(video?.controls).toBe(true);
  });

  it('forgets the recognised id when the link changes to a plain file or to nothing', () => {
    const { container, rerender } = render(<VideoPlayer src="https://vimeo.com/123456789" />);
    expect(container.querySelector('iframe')?.getAttribute('data-hosted-id')).toBe('123456789');

    rerender(<VideoPlayer src="https://cdn.example.org/intro.mp4" />);
    expect(container.querySelector('iframe')).toBeNull();
    expect(container.querySelector('video')?.getAttribute('src')).toBe('https://cdn.example.org/intro.mp4');

    rerender(<VideoPlayer src="https://player.vimeo.com/video/555" />);
    expect(container.querySelector('iframe')?.getAttribute('data-hosted-id')).toBe('555');

    rerender(<VideoPlayer src="" />);
    expect(container.querySelector('iframe')).toBeNull();
    const video = container.querySelector('video');
    expect(video).not.toBeNull();
    expect(video?.hasAttribute('src')).toBe(false);
  });

  it('reports a load error of the native player', () => {
    const onError = vi.fn();
    const { container } = render(<VideoPlayer src="/media/broken.mp4" onError={onError} />);
    const video = container.querySelector('video');
    if (!video) throw new Error('no video');
    fireEvent.error(video);
    expect(onError).toHaveBeenCalledTimes(1);
  });
});
