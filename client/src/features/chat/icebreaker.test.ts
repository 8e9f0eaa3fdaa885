import { CHAT_TEXTS, ICEBREAKER_TEMPLATES } from '@shared/constants';
import { describe, expect, it } from 'vitest';
import { pickIcebreaker } from './icebreaker';

const shows = ['Radiolab', 'Hardcore History', 'Huberman Lab', 'The Daily', 'Serial'].map((name) => ({ name }));

/** A random source that returns the given values in turn. */
const sequence =
  (...values: number[]) =>
  () =>
    values.shift() ?? 0;

describe('pickIcebreaker', () => {
  it('fills a template with a podcast the two share', () => {
    expect(pickIcebreaker(shows, sequence(0, 0))).toBe(ICEBREAKER_TEMPLATES[0].replace('{podcast}', 'Radiolab'));
    expect(pickIcebreaker(shows, sequence(0.5, 0.99))).toBe(
      ICEBREAKER_TEMPLATES[3].replace('{podcast}', 'Hardcore History'),
    );
  });

  it('picks only among the first three shared podcasts, and every template can come up', () => {
    const podcasts = new Set<string>();
    const templates = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const text = pickIcebreaker(shows);
      const show = shows.find((s) => text.includes(s.name));
      expect(show, text).toBeDefined();
      podcasts.add(show?.name ?? '');
      templates.add(ICEBREAKER_TEMPLATES.find((t) => text === t.replace('{podcast}', show?.name ?? '')) ?? text);
    }
    expect([...podcasts].sort()).toEqual(['Hardcore History', 'Huberman Lab', 'Radiolab']);
    expect(templates.size).toBe(ICEBREAKER_TEMPLATES.length);
  });

  it('works with one shared podcast and a random source that returns 1', () => {
    expect(pickIcebreaker([{ name: 'Serial' }], () => 1)).toBe(ICEBREAKER_TEMPLATES[3].replace('{podcast}', 'Serial'));
  });

  it('uses the generic opener when they share no podcast', () => {
    expect(pickIcebreaker([])).toBe(CHAT_TEXTS.noSharedOpener);
    expect(CHAT_TEXTS.noSharedOpener).toBe('Hey there! What podcasts have you been enjoying lately?');
  });

  it('keeps a show name with replacement patterns as it is', () => {
    expect(pickIcebreaker([{ name: 'Money $& Markets $1' }], sequence(0, 0))).toContain('Money $& Markets $1');
  });
});
