import { act, fireEvent, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { noteNetworkAnswer, noteNetworkFailure } from '@/lib/online';
import { announceUpdateForTests, forgetUpdate } from '@/lib/service-worker';
import { renderWithProviders } from '@/test/utils';
import { AppStatusBar } from './app-status-bar';

function renderAt(path: string) {
  return renderWithProviders(
    <Routes>
      <Route path="*" element={<AppStatusBar />} />
    </Routes>,
    { path },
  );
}

function goOffline(offline: boolean) {
  vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(!offline);
  act(() => void window.dispatchEvent(new Event(offline ? 'offline' : 'online')));
}

describe('AppStatusBar', () => {
  afterEach(() => forgetUpdate());

  it('says "You\'re offline" in a polite live region while the network is gone', () => {
    renderAt('/');
    const status = screen.getByTestId('offline-status');
    expect(status.getAttribute('role')).toBe('status');
    expect(status.textContent).toBe('');
    goOffline(true);
    expect(status.textContent).toContain("You're offline.");
    goOffline(false);
    expect(status.textContent).toBe('');
  });

  it('says "Can\'t reach PodMatch" while requests do not get through, until one gets an answer', () => {
    renderAt('/');
    act(() => noteNetworkFailure());
    expect(screen.getByTestId('offline-status').textContent).toContain("Can't reach PodMatch.");
    act(() => noteNetworkAnswer());
    expect(screen.getByTestId('offline-status').textContent).toBe('');
  });

  it('offers a waiting version: "Restart now" outside a chat, "Later" hides it', () => {
    const apply = vi.fn();
    renderAt('/profile');
    act(() => announceUpdateForTests(apply));
    fireEvent.click(screen.getByRole('button', { name: 'Restart now' }));
    expect(apply).toHaveBeenCalledOnce();
    fireEvent.click(screen.getByRole('button', { name: 'Later' }));
    expect(screen.getByTestId('update-status').textContent).toBe('');
  });

  it('never restarts under an open chat: the new version starts next time', () => {
    renderAt('/chat/41');
    act(() => announceUpdateForTests(vi.fn()));
    expect(screen.getByTestId('update-status').textContent).toContain('It starts next time you open PodMatch.');
    expect(screen.queryByRole('button', { name: 'Restart now' })).toBeNull();
  });
});
