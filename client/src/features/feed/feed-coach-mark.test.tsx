import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { coachMarkStorageKey, FeedCoachMark, useFeedCoachMark } from './feed-coach-mark';

function Guide({ userId }: { userId: number }) {
  const guide = useFeedCoachMark(userId);
  return guide.open ? <FeedCoachMark onDismiss={guide.dismiss} /> : null;
}

describe('FeedCoachMark', () => {
  afterEach(() => localStorage.clear());

  it('teaches the gestures once per person, and stays dismissed', () => {
    const { unmount } = render(<Guide userId={7} />);
    expect(screen.getByRole('heading', { name: 'How the feed works' })).not.toBeNull();
    expect(screen.getByText('Swipe up for the next person')).not.toBeNull();
    expect(screen.getByText('Drag left for your matches')).not.toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Got it' }));
    expect(screen.queryByTestId('feed-coach-mark')).toBeNull();
    expect(localStorage.getItem(coachMarkStorageKey(7))).toBe('done');
    unmount();

    render(<Guide userId={7} />);
    expect(screen.queryByTestId('feed-coach-mark')).toBeNull();
  });

  it('shows again for another person on the same browser', () => {
    localStorage.setItem(coachMarkStorageKey(7), 'done');
    render(<Guide userId={8} />);
    expect(screen.getByTestId('feed-coach-mark')).not.toBeNull();
  });
});
