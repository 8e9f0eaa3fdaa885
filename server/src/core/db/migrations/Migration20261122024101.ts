import { Migration } from '@mikro-orm/migrations';

export class Migration20261122024101 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "feed_candidate_runs" ("user_id" int not null, "computed_at" timestamptz not null, constraint "feed_candidate_runs_pkey" primary key ("user_id"));`,
    );

    this.addSql(
      `create table "feed_candidates" ("user_id" int not null, "candidate_id" int not null, "score" smallint not null, "raw" double precision not null, "shared_podcast_ids" int[] not null, constraint "feed_candidates_pkey" primary key ("user_id", "candidate_id"));`,
    );
    this.addSql(`create index "feed_candidates_candidate_id_index" on "feed_candidates" ("candidate_id");`);

    this.addSql(
      `alter table "feed_candidate_runs" add constraint "feed_candidate_runs_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "feed_candidates" add constraint "feed_candidates_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "feed_candidates" add constraint "feed_candidates_candidate_id_foreign" foreign key ("candidate_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "feed_candidate_runs" cascade;`);

    this.addSql(`drop table if exists "feed_candidates" cascade;`);
  }
}
