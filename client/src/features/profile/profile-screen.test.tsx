import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { makeSelfUser } from '@/test/fixtures';
import { renderWithProviders } from '@/test/utils';
import { ProfileScreen } from './profile-screen';

const LONG_NAME = `Maximiliana${'Wolfeschlegelsteinhausen'.repeat(2)}`;

function renderProfile(onSwipeLeft = vi.fn()) {
  renderWithProviders(
    <ProfileScreen
      user={makeSelfUser({ displayName: LONG_NAME, username: 'max' })}
      intent="romantic"
      onIntentChange={() => {}}
      onLogout={() => {}}
      onSwipeLeft={onSwipeLeft}
    >
      <input aria-label="Search" />
    </ProfileScreen>,
  );
  return onSwipeLeft;
}

/** A drag on `target` from x=300 by dx (negative = left), a little downwards. */
function drag(target: Element, dx: number, pointerType = 'touch') {
  fireEvent.pointerDown(target, { clientX: 300, clientY: 100, pointerId: 1, pointerType, button: 0 });
  fireEvent.pointerMove(target, { clientX: 300 + dx / 2, clientY: 104, pointerId: 1, pointerType });
  fireEvent.pointerUp(target, { clientX: 300 + dx, clientY: 108, pointerId: 1, pointerType });
}

describe('ProfileScreen swipe and layout', () => {
  it('a swipe left of more than 100 px calls onSwipeLeft, a shorter or rightward one does not', () => {
    const onSwipeLeft = renderProfile();
    const area = screen.getByTestId('profile-screen');
    drag(area, -80);
    drag(area, 150);
    expect(onSwipeLeft).not.toHaveBeenCalled();
    drag(screen.getByTestId('user-display-name'), -130, 'mouse');
    expect(onSwipeLeft).toHaveBeenCalledTimes(1);
  });

  it('a mostly vertical drag (scrolling) is not a swipe', () => {
    const onSwipeLeft = renderProfile();
    const area = screen.getByTestId('profile-screen');
    fireEvent.pointerDown(area, { clientX: 300, clientY: 100, pointerId: 2, pointerType: 'touch' });
    fireEvent.pointerUp(area, { clientX: 180, clientY: 400, pointerId: 2, pointerType: 'touch' });
    expect(onSwipeLeft).not.toHaveBeenCalled();
  });

  it('a drag that starts in a text field selects text instead of swiping', () => {
    const onSwipeLeft = renderProfile();
    drag(screen.getByRole('textbox', { name: 'Search' }), -150);
    expect(onSwipeLeft).not.toHaveBeenCalled();
  });

  it('lets the browser pan vertically only, and names a truncated display name in full', () => {
    renderProfile();
    expect(screen.getByTestId('profile-screen').className).toContain('touch-pan-y');
    expect(screen.getByTestId('user-display-name').getAttribute('title')).toBe(LONG_NAME);
    expect(screen.getByText('@max').getAttribute('title')).toBe('@max');
  });
});

describe('ProfileScreen', () => {
  it.each([
    ['romantic', 'No dating tagline set'],
    ['platonic', 'No social tagline set'],
    ['professional', 'No professional tagline set'],
  ] as const)('shows the %s tagline fallback when none is set', (intent, fallback) => {
    renderWithProviders(
      <ProfileScreen
        user={makeSelfUser({ romanticTagline: null, platonicTagline: '  ', professionalTagline: null })}
        intent={intent}
        onIntentChange={() => {}}
        onLogout={() => {}}
      />,
    );
    expect(screen.getByTestId('profile-tagline').textContent).toBe(fallback);
  });

  it("shows the current intent's own tagline when there is one", () => {
    renderWithProviders(
      <ProfileScreen
        user={makeSelfUser({ platonicTagline: 'Board games and history pods' })}
        intent="platonic"
        onIntentChange={() => {}}
        onLogout={() => {}}
      />,
    );
    expect(screen.getByTestId('profile-tagline').textContent).toBe('Board games and history pods');
  });

  it("says 'User not found' / 'Please try again later' when the user cannot be loaded", () => {
    renderWithProviders(<ProfileScreen failed intent="romantic" onIntentChange={() => {}} onLogout={() => {}} />);
    expect(screen.getByRole('heading', { name: 'User not found' })).toBeTruthy();
    expect(screen.getByText('Please try again later')).toBeTruthy();
  });

  it('shows the video intro card', () => {
    renderWithProviders(
      <ProfileScreen user={makeSelfUser()} intent="romantic" onIntentChange={() => {}} onLogout={() => {}} />,
    );
    const card = screen.getByTestId('video-intro-card');
    expect(within(card).getByRole('heading', { name: 'Video intro' })).toBeTruthy();
  });
});
