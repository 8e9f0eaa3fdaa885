// The Bluesky link (docs/bluesky.md): the card that links it and the verified badge others see.
export { BlueskyBadge } from './bluesky-badge';
export { BlueskyLinkCard } from './bluesky-link-card';
