import type { FeedItem } from '@shared/schemas/feed';
import { fireEvent, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { feedAvatar } from '@/features/feed/feed-utils';
import { placeholderUrl } from '@/lib/image-url';
import { PersonPicture, pickPicture } from './person-picture';

const USER_PICTURE = '/media/pictures/user.webp';
const PROFILE_PICTURE = '/media/pictures/profile.webp';

function renderPicture(props: { picture: string | null; profilePicture?: string | null }) {
  const view = render(<PersonPicture name="Ada" className="size-10" {...props} />);
  const img = () => {
    const found = view.container.querySelector('img');
    if (!found) throw new Error('no img');
    return found;
  };
  return { ...view, img };
}

describe('avatar fallback order (SPEC section 5)', () => {
  it('picks the user picture, then the profile picture, then nothing', () => {
    expect(pickPicture(USER_PICTURE, PROFILE_PICTURE)).toBe(USER_PICTURE);
    expect(pickPicture(null, PROFILE_PICTURE)).toBe(PROFILE_PICTURE);
    expect(pickPicture('', PROFILE_PICTURE)).toBe(PROFILE_PICTURE);
    expect(pickPicture(undefined, undefined)).toBeNull();
    expect(pickPicture(null, '')).toBeNull();
  });

  it('shows the user picture first, the profile picture without it, else the generated avatar', () => {
    expect(renderPicture({ picture: USER_PICTURE, profilePicture: PROFILE_PICTURE }).img().getAttribute('src')).toBe(
      USER_PICTURE,
    );
    expect(renderPicture({ picture: null, profilePicture: PROFILE_PICTURE }).img().getAttribute('src')).toBe(
      PROFILE_PICTURE,
    );
    expect(renderPicture({ picture: null, profilePicture: null }).img().getAttribute('src')).toBe(
      placeholderUrl('Ada'),
    );
    expect(renderPicture({ picture: null }).img().getAttribute('src')).toBe(placeholderUrl('Ada'));
  });

  it('loads a picture on the media CDN from there: the client builds no proxy URL the server would refuse', () => {
    const cdn = 'https://cdn.example.org/media/pictures/ada-512.webp';
    expect(renderPicture({ picture: cdn }).img().getAttribute('src')).toBe(cdn);
  });

  it('replaces a picture that fails to load with the generated avatar once, with no error loop', () => {
    const { img } = renderPicture({ picture: USER_PICTURE, profilePicture: PROFILE_PICTURE });
    fireEvent.error(img());
    expect(img().getAttribute('src')).toBe(placeholderUrl('Ada'));
    const fallback = img();
    // The default failing too changes nothing: still the same element and source, no new attempt.
    fireEvent.error(img());
    fireEvent.error(img());
    expect(img()).toBe(fallback);
    expect(img().getAttribute('src')).toBe(placeholderUrl('Ada'));
  });

  it('tries a new picture again after an earlier one failed', () => {
    const { img, rerender } = renderPicture({ picture: USER_PICTURE });
    fireEvent.error(img());
    expect(img().getAttribute('src')).toBe(placeholderUrl('Ada'));
    rerender(<PersonPicture name="Ada" className="size-10" picture="/media/pictures/new.webp" />);
    expect(img().getAttribute('src')).toBe('/media/pictures/new.webp');
  });

  it('the feed card avatar follows the same order', () => {
    const base = { id: 7, displayName: 'Ada', profilePicture: null, profile: null } as unknown as FeedItem;
    const profile = {
      displayName: null,
      tagline: null,
      videoIntroUrl: null,
      videoPosterUrl: null,
      profilePicture: PROFILE_PICTURE,
    };
    expect(feedAvatar({ ...base, profilePicture: USER_PICTURE, profile })).toBe(USER_PICTURE);
    expect(feedAvatar({ ...base, profile })).toBe(PROFILE_PICTURE);
    expect(feedAvatar(base)).toBe(placeholderUrl('Ada'));
  });
});
