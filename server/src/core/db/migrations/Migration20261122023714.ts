import { Migration } from '@mikro-orm/migrations';

export class Migration20261122023714 extends Migration {
  override async up(): Promise<void> {
    // Trigram matching for podcast search (ships with PostgreSQL's contrib modules).
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(
      `create table "podcast_episodes" ("id" serial primary key, "podcast_id" int not null, "guid" text not null, "title" text not null, "description" text null, "episode_number" int null, "published_at" timestamptz null, "duration_seconds" int null, "spotify_id" varchar(255) null);`,
    );
    this.addSql(
      `create index "podcast_episodes_podcast_id_published_at_index" on "podcast_episodes" ("podcast_id", "published_at");`,
    );
    this.addSql(
      `alter table "podcast_episodes" add constraint "podcast_episodes_podcast_id_guid_unique" unique ("podcast_id", "guid");`,
    );

    this.addSql(
      `create table "blocks" ("id" serial primary key, "blocker_id" int not null, "blocked_id" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "blocks_blocked_id_index" on "blocks" ("blocked_id");`);
    this.addSql(
      `alter table "blocks" add constraint "blocks_blocker_id_blocked_id_unique" unique ("blocker_id", "blocked_id");`,
    );

    this.addSql(
      `alter table "podcast_episodes" add constraint "podcast_episodes_podcast_id_foreign" foreign key ("podcast_id") references "podcasts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "blocks" add constraint "blocks_blocker_id_foreign" foreign key ("blocker_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "blocks" add constraint "blocks_blocked_id_foreign" foreign key ("blocked_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "podcasts" add column "categories" text[] not null default '{}', add column "last_fetched_at" timestamptz null, add column "fetch_error" text null;`,
    );
    this.addSql(`create index "podcasts_name_trgm_index" on "podcasts" using gin (lower("name") gin_trgm_ops);`);

    this.addSql(
      `alter table "user_podcasts" add column "source" text check ("source" in ('spotify', 'opml', 'manual')) not null default 'manual', add column "created_at" timestamptz not null default now();`,
    );

    this.addSql(`alter table "user_profiles" add column "active" boolean not null default true;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "podcast_episodes" cascade;`);

    this.addSql(`drop table if exists "blocks" cascade;`);

    this.addSql(`drop index "podcasts_name_trgm_index";`);
    this.addSql(
      `alter table "podcasts" drop column "categories", drop column "last_fetched_at", drop column "fetch_error";`,
    );

    this.addSql(`alter table "user_podcasts" drop column "source", drop column "created_at";`);

    this.addSql(`alter table "user_profiles" drop column "active";`);
  }
}
