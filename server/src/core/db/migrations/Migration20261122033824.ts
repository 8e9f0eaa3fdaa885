import { Migration } from '@mikro-orm/migrations';

export class Migration20261122033824 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "reports" ("id" serial primary key, "reporter_id" int not null, "reported_id" int not null, "match_id" int null, "reason" text check ("reason" in ('spam', 'harassment', 'inappropriate', 'fake_profile', 'other')) not null, "details" varchar(1000) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "reports_reporter_id_index" on "reports" ("reporter_id");`);
    this.addSql(`create index "reports_reported_id_index" on "reports" ("reported_id");`);

    this.addSql(
      `alter table "reports" add constraint "reports_reporter_id_foreign" foreign key ("reporter_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_reported_id_foreign" foreign key ("reported_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_match_id_foreign" foreign key ("match_id") references "matches" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "matches" add column "user1_favorite" boolean not null default false, add column "user2_favorite" boolean not null default false, add column "user1_seen_at" timestamptz null, add column "user2_seen_at" timestamptz null, add column "mutual_at" timestamptz null, add column "unmatched_at" timestamptz null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "reports" cascade;`);

    this.addSql(
      `alter table "matches" drop column "user1_favorite", drop column "user2_favorite", drop column "user1_seen_at", drop column "user2_seen_at", drop column "mutual_at", drop column "unmatched_at";`,
    );
  }
}
