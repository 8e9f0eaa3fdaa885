import { Migration } from '@mikro-orm/migrations';

/**
 * feed_candidates is derived data that the full recompute rebuilds and swaps in (docs/matching.md).
 * Its foreign keys to users made each swap take a strong lock on `users` (dropping the old table's
 * constraint triggers), which deadlocked with likes that read users and then the feed table. Rows of
 * a deleted person are invisible (the feed joins users) and gone at the next full recompute.
 */
export class Migration20261123230000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "feed_candidates" drop constraint if exists "feed_candidates_user_id_foreign";`);
    this.addSql(`alter table "feed_candidates" drop constraint if exists "feed_candidates_candidate_id_foreign";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "feed_candidates" add constraint "feed_candidates_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade not valid;`,
    );
    this.addSql(
      `alter table "feed_candidates" add constraint "feed_candidates_candidate_id_foreign" foreign key ("candidate_id") references "users" ("id") on update cascade on delete cascade not valid;`,
    );
  }
}
