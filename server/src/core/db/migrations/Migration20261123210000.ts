import { Migration } from '@mikro-orm/migrations';

/**
 * Matching freshness (docs/matching.md):
 * - `library_changes`: a sequence every statement that writes `user_podcasts` advances (sequences
 *   take no row locks, so concurrent imports do not queue on it). The model records its value when
 *   it read the libraries; a higher value now means libraries changed since.
 * - `matching_model`: the one current model (listener counts, population) that every stored score
 *   was computed with, and how long the last full recompute took.
 * - `taste_neighbours`: each person's taste neighbourhood (the people closest by shared shows),
 *   compared between people by the match score.
 */
export class Migration20261123210000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create sequence if not exists "library_changes";`);
    this.addSql(`create or replace function "note_library_change"() returns trigger language plpgsql as $$
      begin perform nextval('library_changes'); return null; end $$;`);
    this.addSql(`create trigger "user_podcasts_library_change" after insert or update or delete on "user_podcasts"
      for each statement execute function "note_library_change"();`);
    this.addSql(`create table "matching_model" (
      "id" smallint primary key default 1 check ("id" = 1),
      "version" int not null,
      "users" int not null,
      "change_seq" bigint not null,
      "snapshot_at" timestamptz not null,
      "finished_at" timestamptz not null,
      "duration_ms" int not null,
      "podcast_ids" bytea not null,
      "listeners" bytea not null);`);
    this.addSql(`create table "taste_neighbours" (
      "user_id" int primary key,
      "ids" int[] not null,
      "weights" float8[] not null);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "taste_neighbours";`);
    this.addSql(`drop table if exists "matching_model";`);
    this.addSql(`drop trigger if exists "user_podcasts_library_change" on "user_podcasts";`);
    this.addSql(`drop function if exists "note_library_change"();`);
    this.addSql(`drop sequence if exists "library_changes";`);
  }
}
