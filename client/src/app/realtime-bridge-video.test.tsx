import { act, render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { videoIntrosQuery } from '@/features/videos/video-project';
import { createQueryClient } from '@/lib/query-client';
import { jsonResponse, mockFetch } from '@/test/utils';
import { emptyIntros, jobEvent } from '@/test/video';
import { AppProviders } from './providers';
import RealtimeBridge from './realtime-bridge';

const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());
vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const ME = 7;

function renderBridge() {
  const queryClient = createQueryClient();
  const router = createMemoryRouter([{ path: '/profile', element: <RealtimeBridge userId={ME} /> }], {
    initialEntries: ['/profile'],
  });
  render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return queryClient;
}

describe('RealtimeBridge: video jobs', () => {
  beforeEach(() => fake.reset());

  it.each(['video.render', 'media.transcode'] as const)(
    'a finished %s makes the video list stale (not the feed, which never shows their own video), not while it runs',
    (name) => {
      mockFetch(() => jsonResponse([]));
      const queryClient = renderBridge();
      const intros = videoIntrosQuery(ME).queryKey;
      const feed = [`/api/users/${ME}/feed?intent=romantic`] as const;
      const counts = [`/api/users/${ME}/feed-counts`] as const;
      queryClient.setQueryData(intros, emptyIntros());
      queryClient.setQueryData(feed, []);
      queryClient.setQueryData(counts, { romantic: 0, platonic: 0, professional: 0 });

      act(() => fake.emit('job:status', jobEvent(name, 'active', 60)));
      expect(queryClient.getQueryState(intros)?.isInvalidated).toBe(false);

      act(() => fake.emit('job:status', jobEvent(name, 'completed', 100)));
      expect(queryClient.getQueryState(intros)?.isInvalidated).toBe(true);
      expect(queryClient.getQueryState(feed)?.isInvalidated).toBe(false);
      expect(queryClient.getQueryState(counts)?.isInvalidated).toBe(false);
    },
  );
});
