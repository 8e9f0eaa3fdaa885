import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in for everyone (docs/auth.md): accounts opened with an email code, a passkey or Bluesky,
 * and the identities behind them. An email address is an identity like a Spotify account (one per
 * account, one owner each); passkeys are identities too, several per account (a device each), with
 * what verifying their signatures needs: the public key, the signature counter, the transports and
 * the backup flags. Email codes are rows (their hash only), so tries and single use are counted by
 * one atomic update wherever the request lands.
 */
export class Migration20261127100000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" drop constraint if exists "users_sign_up_method_check";`);
    this.addSql(
      `alter table "users" add constraint "users_sign_up_method_check" check ("sign_up_method" in ('dev_login', 'spotify', 'demo', 'email', 'passkey', 'bluesky'));`,
    );
    this.addSql(`alter table "user_identities" drop constraint if exists "user_identities_provider_check";`);
    this.addSql(
      `alter table "user_identities" add constraint "user_identities_provider_check" check ("provider" in ('spotify', 'bluesky', 'email', 'passkey'));`,
    );
    this.addSql(`drop index if exists "user_identities_user_provider_unique";`);
    this.addSql(
      `create unique index "user_identities_user_provider_unique" on "user_identities" ("user_id", "provider") where "provider" in ('spotify', 'bluesky', 'email');`,
    );
    this.addSql(`alter table "user_identities"
      add column "public_key" text null,
      add column "sign_count" bigint null,
      add column "transports" text null,
      add column "backed_up" boolean null,
      add column "device_type" varchar(255) null,
      add column "last_used_at" timestamptz null;`);

    this.addSql(`create table "email_codes" (
      "id" serial primary key,
      "email" varchar(320) not null,
      "purpose" text check ("purpose" in ('signIn', 'link', 'reauth')) not null,
      "user_id" int null,
      "code_hash" varchar(255) not null,
      "attempts" int not null default 0,
      "expires_at" timestamptz not null,
      "used_at" timestamptz null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "email_codes_email_purpose_index" on "email_codes" ("email", "purpose");`);
    this.addSql(`create index "email_codes_user_id_index" on "email_codes" ("user_id");`);
    this.addSql(`create index "email_codes_expires_at_index" on "email_codes" ("expires_at");`);
    this.addSql(
      `alter table "email_codes" add constraint "email_codes_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "email_codes" cascade;`);
    this.addSql(`delete from "user_identities" where "provider" in ('email', 'passkey');`);
    this.addSql(`alter table "user_identities"
      drop column "public_key", drop column "sign_count", drop column "transports",
      drop column "backed_up", drop column "device_type", drop column "last_used_at";`);
    this.addSql(`drop index if exists "user_identities_user_provider_unique";`);
    this.addSql(
      `create unique index "user_identities_user_provider_unique" on "user_identities" ("user_id", "provider") where "provider" in ('spotify', 'bluesky');`,
    );
    this.addSql(`alter table "user_identities" drop constraint if exists "user_identities_provider_check";`);
    this.addSql(
      `alter table "user_identities" add constraint "user_identities_provider_check" check ("provider" in ('spotify', 'bluesky'));`,
    );
    this.addSql(`alter table "users" drop constraint if exists "users_sign_up_method_check";`);
    this.addSql(
      `alter table "users" add constraint "users_sign_up_method_check" check ("sign_up_method" in ('dev_login', 'spotify', 'demo'));`,
    );
  }
}
