import { CloudOff, Sparkles } from 'lucide-react';
import { type RefObject, useEffect, useRef, useState } from 'react';
import { useMatch } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { useConnection } from '@/lib/online';
import { restartIntoUpdate, useUpdateReady } from '@/lib/service-worker';

/** The bar's height, for screens as tall as the window (the chat): `--app-status-height`. */
function useHeightVariable(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = ref.current;
    const root = document.documentElement;
    if (!element || typeof ResizeObserver !== 'function') return;
    const observer = new ResizeObserver(() => {
      root.style.setProperty('--app-status-height', `${element.offsetHeight}px`);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--app-status-height');
    };
  }, [ref]);
}

/**
 * Above every screen (docs/notifications.md, "Offline" and "Updates"): "You're offline" while the
 * browser has no network, "Can't reach PodMatch" while requests do not get through (the screens keep
 * what they loaded; queries and the socket catch up when it returns), and "A new version is ready" once a new service worker waits. Its "Restart now" is
 * not offered in a chat, where a reload would interrupt typing; without it the new version starts
 * the next time the app is opened. Both are polite live regions, present before they have text.
 */
export function AppStatusBar() {
  const connection = useConnection();
  const updateReady = useUpdateReady();
  const inChat = useMatch('/chat/:matchId') !== null;
  const [later, setLater] = useState(false);
  const bar = useRef<HTMLDivElement>(null);
  useHeightVariable(bar);
  const showUpdate = updateReady && !later;

  return (
    <div ref={bar} data-testid="app-status-bar" className="sticky top-0 z-40">
      <div role="status" data-testid="offline-status">
        {connection === 'online' ? null : (
          <p className="flex items-start justify-center gap-2 border-b border-amber-400/30 bg-amber-950 px-4 py-2 text-sm text-amber-50">
            <CloudOff aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-amber-300" />
            <span className="min-w-0">
              <strong className="font-semibold">
                {connection === 'offline' ? "You're offline." : "Can't reach PodMatch."}
              </strong>{' '}
              New messages and matches arrive when you're back.
            </span>
          </p>
        )}
      </div>
      <div role="status" data-testid="update-status">
        {showUpdate ? (
          <div className="flex flex-wrap items-center justify-center gap-x-3 gap-y-1 border-b border-white/10 bg-ink-raised px-4 py-2 text-sm text-zinc-100">
            <p className="flex min-w-0 items-start gap-2">
              <Sparkles aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-intent-soft" />
              <span>
                <strong className="font-semibold">A new version is ready.</strong>{' '}
                {inChat ? 'It starts next time you open PodMatch.' : 'It starts next time, or now.'}
              </span>
            </p>
            <div className="flex gap-1">
              {inChat ? null : (
                <Button size="sm" variant="outline" onClick={restartIntoUpdate}>
                  Restart now
                </Button>
              )}
              <Button size="sm" variant="ghost" onClick={() => setLater(true)}>
                {inChat ? 'OK' : 'Later'}
              </Button>
            </div>
          </div>
        ) : null}
      </div>
    </div>
  );
}
