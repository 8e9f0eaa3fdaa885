import { TIMING } from '@shared/constants';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { SPOTIFY_AUTH_PATH, SpotifyLoginButton } from './spotify-login-button';

describe('SpotifyLoginButton', () => {
  it("shows 'Redirecting...' and goes to the provider path after 1 s", () => {
    vi.useFakeTimers();
    const location = { href: 'http://localhost/login' };
    vi.spyOn(window, 'location', 'get').mockReturnValue(location as Location);
    render(<SpotifyLoginButton />);

    fireEvent.click(screen.getByRole('button', { name: 'Continue with Spotify' }));
    const button = screen.getByRole('button', { name: 'Redirecting...' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);

    act(() => vi.advanceTimersByTime(TIMING.spotifyRedirectDelayMs - 1));
    expect(location.href).toBe('http://localhost/login');
    act(() => vi.advanceTimersByTime(1));
    expect(location.href).toBe(SPOTIFY_AUTH_PATH);
  });
});
