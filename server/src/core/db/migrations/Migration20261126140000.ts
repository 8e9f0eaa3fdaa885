import { Migration } from '@mikro-orm/migrations';

/**
 * The Bluesky link (docs/bluesky.md): the rest of the OAuth session (DPoP key, issuer, scope,
 * expiry; encrypted like the tokens) next to atp_access_token / atp_refresh_token, and one DID per
 * profile at most.
 */
export class Migration20261126140000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "atp_oauth_session" text null;`);
    this.addSql(`create unique index "users_atp_did_unique" on "users" ("atp_did") where "atp_did" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "users_atp_did_unique";`);
    this.addSql(`alter table "users" drop column if exists "atp_oauth_session";`);
  }
}
