import type { EntityManager } from '@mikro-orm/postgresql';
import type { Intent } from '@shared/index';
import { createUser } from '../../features/users/user.service';
import { UserSchema } from '../entities';

interface DemoPerson {
  username: string;
  displayName: string;
  intent: Intent;
  romanticTagline: string;
  platonicTagline: string;
  professionalTagline: string;
}

/** A handful of demo people so a new install has someone in it; later seeds grow this. */
export const DEMO_PEOPLE: DemoPerson[] = [
  {
    username: 'demo.maya',
    displayName: 'Maya',
    intent: 'romantic',
    romanticTagline: 'True-crime by night, science shows by day',
    platonicTagline: 'Looking for a podcast book club',
    professionalTagline: 'Product designer who learns from founder interviews',
  },
  {
    username: 'demo.theo',
    displayName: 'Theo',
    intent: 'platonic',
    romanticTagline: 'Will trade history deep-dives for good coffee',
    platonicTagline: 'Long walks, longer episodes',
    professionalTagline: 'Data engineer, listens to tech news on the commute',
  },
  {
    username: 'demo.priya',
    displayName: 'Priya',
    intent: 'professional',
    romanticTagline: 'Comedy podcasts are my love language',
    platonicTagline: 'Always up for a pub quiz',
    professionalTagline: 'Founder in climate tech, happy to swap notes',
  },
  {
    username: 'demo.jonas',
    displayName: 'Jonas',
    intent: 'romantic',
    romanticTagline: 'Looking for someone to finish my episode queue with',
    platonicTagline: 'Board games and sci-fi audio dramas',
    professionalTagline: 'Teacher curious about learning science',
  },
  {
    username: 'demo.lea',
    displayName: 'Léa',
    intent: 'platonic',
    romanticTagline: 'Language-learning podcasts, slowly',
    platonicTagline: 'New in town, say hi',
    professionalTagline: 'Journalist tracking the audio industry',
  },
  {
    username: 'demo.sam',
    displayName: 'Sam',
    intent: 'professional',
    romanticTagline: 'Sports talk and cooking shows',
    platonicTagline: 'Running club plus a podcast on every run',
    professionalTagline: 'Sales lead, mentor, interview-podcast nerd',
  },
];

/** Seeds the demo people into an empty database; returns the ids it created (none if not empty). */
export async function seedDemoData(em: EntityManager): Promise<number[]> {
  if ((await em.count(UserSchema, {})) > 0) return [];
  const ids: number[] = [];
  for (const person of DEMO_PEOPLE) {
    const user = await createUser(em.fork(), { ...person, isDemo: true });
    ids.push(user.id);
  }
  return ids;
}
