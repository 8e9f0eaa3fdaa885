import { Migration } from '@mikro-orm/migrations';

/**
 * The shared catalog cannot be poisoned by an upload (docs/podcasts.md, "Who sees a new show"): a row
 * an OPML import creates remembers who added it (`added_by`, for the per-person daily quota) and
 * stays unverified (`verified_at` null) until its feed was read successfully; only then do others see
 * its name and artwork. Every other writer (seeds, Spotify, earlier rows) is verified by default.
 * `fetch_queued_at` marks a feed read that is queued, so repeated imports queue it once.
 */
export class Migration20261124130000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "podcasts" add column "added_by" int null references "users" ("id") on delete set null, add column "verified_at" timestamptz null default now(), add column "fetch_queued_at" timestamptz null;`,
    );
    this.addSql(`update "podcasts" set "verified_at" = coalesce("last_fetched_at", "created_at", now());`);
    this.addSql(
      `create index "podcasts_added_by_created_at_index" on "podcasts" ("added_by", "created_at") where "added_by" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "podcasts_added_by_created_at_index";`);
    this.addSql(
      `alter table "podcasts" drop column if exists "added_by", drop column if exists "verified_at", drop column if exists "fetch_queued_at";`,
    );
  }
}
