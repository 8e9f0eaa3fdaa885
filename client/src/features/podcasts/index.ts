// The podcast library (docs/podcasts.md): the one query of a person's library, for features that show it.
export { libraryQuery } from './podcast-queries';
