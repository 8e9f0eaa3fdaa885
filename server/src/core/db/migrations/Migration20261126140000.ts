import { Migration } from '@mikro-orm/migrations';

/**
 * The Bluesky link (docs/bluesky.md): the rest of the OAuth session (DPoP key, issuer, scope,
 * expiry; encrypted like the tokens) next to atp_access_token / atp_refresh_token, one DID per
 * profile at most, and the OAuth client's authorization states (encrypted, 10 minutes).
 */
export class Migration20261126140000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "atp_oauth_session" text null;`);
    this.addSql(`create unique index "users_atp_did_unique" on "users" ("atp_did") where "atp_did" is not null;`);
    this.addSql(`create table "bluesky_oauth_states" (
      "key" text primary key,
      "data" text not null,
      "expires_at" timestamptz not null);`);
    this.addSql(`create index "bluesky_oauth_states_expires_at" on "bluesky_oauth_states" ("expires_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "bluesky_oauth_states";`);
    this.addSql(`drop index if exists "users_atp_did_unique";`);
    this.addSql(`alter table "users" drop column if exists "atp_oauth_session";`);
  }
}
