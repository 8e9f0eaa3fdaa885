import { Migration } from '@mikro-orm/migrations';

export class Migration20261122015653 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "podcasts" ("id" serial primary key, "spotify_id" varchar(255) null, "feed_url" text null, "name" text not null, "creator" text null, "image_url" text null, "category" varchar(255) null, "title" text null, "description" text null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "podcasts" add constraint "podcasts_spotify_id_unique" unique ("spotify_id");`);
    this.addSql(`alter table "podcasts" add constraint "podcasts_feed_url_unique" unique ("feed_url");`);

    this.addSql(
      `create table "users" ("id" serial primary key, "username" varchar(255) not null, "password" text not null, "display_name" varchar(255) not null, "profile_picture" text null, "spotify_id" varchar(255) null, "spotify_access_token" text null, "spotify_refresh_token" text null, "spotify_token_expiry" timestamptz null, "last_spotify_sync" timestamptz null, "intent" text check ("intent" in ('romantic', 'platonic', 'professional')) not null default 'romantic', "match_preferences" jsonb not null, "tagline" text null, "romantic_tagline" text null, "platonic_tagline" text null, "professional_tagline" text null, "video_intro_url" text null, "atp_did" varchar(255) null, "atp_handle" varchar(255) null, "atp_access_token" text null, "atp_refresh_token" text null, "atp_refresh_token_expiry" timestamptz null, "is_demo" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "users" add constraint "users_username_unique" unique ("username");`);
    this.addSql(`alter table "users" add constraint "users_spotify_id_unique" unique ("spotify_id");`);

    this.addSql(
      `create table "sessions" ("id" serial primary key, "user_id" int not null, "token_hash" varchar(255) not null, "family" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "rotated_at" timestamptz null, "revoked_at" timestamptz null, "user_agent" varchar(255) null);`,
    );
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "sessions_family_index" on "sessions" ("family");`);

    this.addSql(
      `create table "matches" ("id" serial primary key, "user1_id" int not null, "user2_id" int not null, "intent" text check ("intent" in ('romantic', 'platonic', 'professional')) not null, "match_percentage" int not null default 0, "user1_liked" boolean not null default false, "user2_liked" boolean not null default false, "created_at" timestamptz not null, constraint matches_ordered_pair check (user1_id < user2_id));`,
    );
    this.addSql(`create index "matches_user2_id_index" on "matches" ("user2_id");`);
    this.addSql(
      `alter table "matches" add constraint "matches_user1_id_user2_id_intent_unique" unique ("user1_id", "user2_id", "intent");`,
    );

    this.addSql(
      `create table "messages" ("id" serial primary key, "match_id" int not null, "sender_id" int not null, "content" text not null, "client_id" uuid null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "messages_match_id_id_index" on "messages" ("match_id", "id");`);
    this.addSql(
      `alter table "messages" add constraint "messages_sender_id_client_id_unique" unique ("sender_id", "client_id");`,
    );

    this.addSql(
      `create table "user_podcasts" ("id" serial primary key, "user_id" int not null, "podcast_id" int not null, "episode_count" int null, "last_listened" timestamptz null, "hidden" boolean not null default false, "times_listened" int not null default 0, "last_episode" text null);`,
    );
    this.addSql(`create index "user_podcasts_podcast_id_index" on "user_podcasts" ("podcast_id");`);
    this.addSql(
      `alter table "user_podcasts" add constraint "user_podcasts_user_id_podcast_id_unique" unique ("user_id", "podcast_id");`,
    );

    this.addSql(
      `create table "user_profiles" ("id" serial primary key, "user_id" int not null, "intent" text check ("intent" in ('romantic', 'platonic', 'professional')) not null, "display_name" varchar(255) null, "tagline" text null, "video_intro_url" text null, "profile_picture" text null);`,
    );
    this.addSql(
      `alter table "user_profiles" add constraint "user_profiles_user_id_intent_unique" unique ("user_id", "intent");`,
    );

    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "matches" add constraint "matches_user1_id_foreign" foreign key ("user1_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "matches" add constraint "matches_user2_id_foreign" foreign key ("user2_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "messages" add constraint "messages_match_id_foreign" foreign key ("match_id") references "matches" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "messages" add constraint "messages_sender_id_foreign" foreign key ("sender_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "user_podcasts" add constraint "user_podcasts_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "user_podcasts" add constraint "user_podcasts_podcast_id_foreign" foreign key ("podcast_id") references "podcasts" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "user_profiles" add constraint "user_profiles_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }
}
