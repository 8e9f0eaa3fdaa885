import { Migration } from '@mikro-orm/migrations';

/**
 * The Podcast Index id a feed states about itself (`<podcast:guid>`), stored by each successful read
 * of the row's own feed (docs/podcasts.md, "One show, one row"). The RSS sync merges two rows by it
 * only when both feeds state it and it is the kept row's own (derived from its feed URL); rows are
 * looked up by it, so it is indexed.
 */
export class Migration20261126190000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "podcasts" add column "podcast_guid" text null;`);
    this.addSql(
      `create index "podcasts_podcast_guid_index" on "podcasts" ("podcast_guid") where "podcast_guid" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "podcasts_podcast_guid_index";`);
    this.addSql(`alter table "podcasts" drop column if exists "podcast_guid";`);
  }
}
