import { Migration } from '@mikro-orm/migrations';

/**
 * Linked identities move off `users` into one table (docs/architecture.md, "Data"): a row per
 * Spotify account or Bluesky DID linked to an account, and the sign-in methods to come. Every
 * linked identity is copied with its stored values as they are: the ciphertexts stay bound to the
 * same person (core/crypto: `user:<id>` for Spotify, `bluesky:user:<id>` for Bluesky) and keep
 * decrypting. The unique rules move with them: one Spotify account and one DID per account
 * (`user_identities_user_provider_unique`), and each Spotify account or DID linked to one account
 * at most (`user_identities_provider_subject_unique`, as `users_spotify_id_unique` and
 * `users_atp_did_unique` were). Spotify tokens without a Spotify id cannot exist (both are written
 * together); a row without `spotify_id` has nothing to copy.
 */
export class Migration20261127000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "user_identities" (
      "id" serial primary key,
      "user_id" int not null,
      "provider" text check ("provider" in ('spotify', 'bluesky')) not null,
      "subject" varchar(255) not null,
      "handle" varchar(255) null,
      "access_token" text null,
      "refresh_token" text null,
      "session" text null,
      "expires_at" timestamptz null,
      "synced_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(`create index "user_identities_user_id_index" on "user_identities" ("user_id");`);
    this.addSql(
      `alter table "user_identities" add constraint "user_identities_provider_subject_unique" unique ("provider", "subject");`,
    );
    this.addSql(
      `create unique index "user_identities_user_provider_unique" on "user_identities" ("user_id", "provider") where "provider" in ('spotify', 'bluesky');`,
    );
    this.addSql(
      `alter table "user_identities" add constraint "user_identities_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`insert into "user_identities"
      ("user_id", "provider", "subject", "access_token", "refresh_token", "expires_at", "synced_at", "created_at", "updated_at")
      select "id", 'spotify', "spotify_id", "spotify_access_token", "spotify_refresh_token", "spotify_token_expiry",
             "last_spotify_sync", now(), now()
        from "users" where "spotify_id" is not null;`);
    this.addSql(`insert into "user_identities"
      ("user_id", "provider", "subject", "handle", "access_token", "refresh_token", "session", "expires_at", "created_at", "updated_at")
      select "id", 'bluesky', "atp_did", "atp_handle", "atp_access_token", "atp_refresh_token", "atp_oauth_session",
             "atp_refresh_token_expiry", now(), now()
        from "users" where "atp_did" is not null;`);

    this.addSql(`drop index if exists "users_atp_did_unique";`);
    this.addSql(`alter table "users" drop constraint if exists "users_spotify_id_unique";`);
    this.addSql(`alter table "users"
      drop column "spotify_id", drop column "spotify_access_token", drop column "spotify_refresh_token",
      drop column "spotify_token_expiry", drop column "last_spotify_sync", drop column "atp_did",
      drop column "atp_handle", drop column "atp_access_token", drop column "atp_refresh_token",
      drop column "atp_refresh_token_expiry", drop column "atp_oauth_session";`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users"
      add column "spotify_id" varchar(255) null, add column "spotify_access_token" text null,
      add column "spotify_refresh_token" text null, add column "spotify_token_expiry" timestamptz null,
      add column "last_spotify_sync" timestamptz null, add column "atp_did" varchar(255) null,
      add column "atp_handle" varchar(255) null, add column "atp_access_token" text null,
      add column "atp_refresh_token" text null, add column "atp_refresh_token_expiry" timestamptz null,
      add column "atp_oauth_session" text null;`);
    this.addSql(`update "users" u set "spotify_id" = i."subject", "spotify_access_token" = i."access_token",
        "spotify_refresh_token" = i."refresh_token", "spotify_token_expiry" = i."expires_at",
        "last_spotify_sync" = i."synced_at"
      from "user_identities" i where i."user_id" = u."id" and i."provider" = 'spotify';`);
    this.addSql(`update "users" u set "atp_did" = i."subject", "atp_handle" = i."handle",
        "atp_access_token" = i."access_token", "atp_refresh_token" = i."refresh_token",
        "atp_oauth_session" = i."session", "atp_refresh_token_expiry" = i."expires_at"
      from "user_identities" i where i."user_id" = u."id" and i."provider" = 'bluesky';`);
    this.addSql(`alter table "users" add constraint "users_spotify_id_unique" unique ("spotify_id");`);
    this.addSql(`create unique index "users_atp_did_unique" on "users" ("atp_did") where "atp_did" is not null;`);
    this.addSql(`drop table if exists "user_identities";`);
  }
}
