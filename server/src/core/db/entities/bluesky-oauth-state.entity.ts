import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * The Bluesky OAuth client's authorizations in progress, by state key: encrypted, for 10 minutes
 * (core/bluesky/bluesky-client.ts; docs/bluesky.md).
 */
export const BlueskyOauthStateSchema = defineEntity({
  name: 'BlueskyOauthState',
  tableName: 'bluesky_oauth_states',
  properties: {
    key: p.text().primary(),
    data: p.text(),
    expiresAt: p.datetime(),
  },
  indexes: [{ name: 'bluesky_oauth_states_expires_at', properties: ['expiresAt'] }],
});
export type BlueskyOauthState = InferEntity<typeof BlueskyOauthStateSchema>;
