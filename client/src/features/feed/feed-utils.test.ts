import { describe, expect, it } from 'vitest';
import { decideDrag, dragHint } from './feed-utils';

describe('decideDrag', () => {
  it('vertical drags past 80 px go to the next (up) or previous (down) card', () => {
    expect(decideDrag({ x: 0, y: -81 })).toBe('next');
    expect(decideDrag({ x: 10, y: 81 })).toBe('previous');
    expect(decideDrag({ x: 0, y: -80 })).toBe('none');
    expect(decideDrag({ x: 0, y: 80 })).toBe('none');
  });

  it('horizontal drags past 150 px go to /profile (right) or /matches (left)', () => {
    expect(decideDrag({ x: 151, y: 0 })).toBe('profile');
    expect(decideDrag({ x: -151, y: 20 })).toBe('matches');
    expect(decideDrag({ x: 150, y: 0 })).toBe('none');
    expect(decideDrag({ x: -120, y: 10 })).toBe('none');
  });

  it('the dominant axis decides', () => {
    expect(decideDrag({ x: 200, y: -210 })).toBe('next');
    expect(decideDrag({ x: -200, y: 100 })).toBe('matches');
  });
});

describe('dragHint', () => {
  it('shows a hint once the drag passes 20 px', () => {
    expect(dragHint(20)).toBeNull();
    expect(dragHint(21)).toBe('profile');
    expect(dragHint(-21)).toBe('matches');
  });
});
