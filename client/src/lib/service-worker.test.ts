import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeNotifications, listenForNavigation } from './service-worker';

/** navigator.serviceWorker as the page sees it: messages from the worker, and its registration. */
function fakeContainer(notifications: { tag: string; close: () => void }[] = []) {
  const container = new EventTarget() as EventTarget & { getRegistration: () => Promise<unknown> };
  container.getRegistration = async () => ({
    getNotifications: async ({ tag }: { tag: string }) => notifications.filter((n) => n.tag === tag),
  });
  vi.stubGlobal('navigator', Object.assign(Object.create(navigator), { serviceWorker: container }));
  return container;
}

const fromWorker = (data: unknown) => new MessageEvent('message', { data });

describe("the service worker's messages to the page", () => {
  afterEach(() => vi.unstubAllGlobals());

  it('routes {type: navigate} to its app path, and nothing else', () => {
    const container = fakeContainer();
    const navigate = vi.fn();
    const stop = listenForNavigation(navigate);
    container.dispatchEvent(fromWorker({ type: 'navigate', url: '/chat/41' }));
    container.dispatchEvent(fromWorker({ type: 'navigate', url: 'https://evil.example/' }));
    container.dispatchEvent(fromWorker({ type: 'navigate', url: '//evil.example/' }));
    container.dispatchEvent(fromWorker({ type: 'other', url: '/profile' }));
    container.dispatchEvent(fromWorker('navigate'));
    expect(navigate.mock.calls).toEqual([['/chat/41']]);
    stop();
    container.dispatchEvent(fromWorker({ type: 'navigate', url: '/matches' }));
    expect(navigate).toHaveBeenCalledTimes(1);
  });

  it("closes the notifications of one tag: an opened conversation's", async () => {
    const closed: string[] = [];
    fakeContainer([
      { tag: 'chat-41', close: () => closed.push('chat-41') },
      { tag: 'chat-7', close: () => closed.push('chat-7') },
    ]);
    expect(await closeNotifications('chat-41')).toBe(1);
    expect(closed).toEqual(['chat-41']);
  });

  it('does nothing without a service worker', async () => {
    vi.stubGlobal('navigator', Object.create(navigator));
    expect(listenForNavigation(vi.fn())).toBeTypeOf('function');
    expect(await closeNotifications('chat-41')).toBe(0);
  });
});
