import { Migration } from '@mikro-orm/migrations';

/**
 * Video intros (docs/videos.md): one row per generation or upload, at most one unfinished per
 * person and intent, and the poster of each intent's current video next to its URL.
 */
export class Migration20261124100000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "video_intros" (
      "id" uuid not null primary key,
      "user_id" int not null references "users" ("id") on update cascade on delete cascade,
      "intent" text check ("intent" in ('romantic', 'platonic', 'professional')) not null,
      "source" text check ("source" in ('generated', 'upload')) not null,
      "status" text check ("status" in ('queued', 'preparing', 'submitting', 'processing', 'completed', 'failed')) not null,
      "progress" smallint not null default 0,
      "match_percentage" smallint not null default 95,
      "source_key" text null,
      "video_key" text null,
      "poster_key" text null,
      "error_code" text null,
      "completions" smallint not null default 0,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now());`);
    this.addSql(
      `create index "video_intros_user_id_index" on "video_intros" ("user_id", "intent", "created_at" desc);`,
    );
    this.addSql(`create unique index "video_intros_one_active" on "video_intros" ("user_id", "intent")
      where "status" not in ('completed', 'failed');`);
    this.addSql(`alter table "user_profiles" add column "video_poster_url" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "video_intros";`);
    this.addSql(`alter table "user_profiles" drop column "video_poster_url";`);
  }
}
