import { Migration } from '@mikro-orm/migrations';

/**
 * Reports outlive either side's deletion (docs/privacy.md, "Reports"): a harasser who deletes their
 * account and signs up again does not wipe the record. The reported person's id stays (a plain
 * column, no longer a key into users), with their display name at the time of the report and the
 * text of their messages in the reported match (`report_messages`); a deleted reporter's id becomes
 * null. Kept for the retention period, then swept by the worker (`reports.expire`).
 */
export class Migration20261126180000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "reports" drop constraint if exists "reports_reported_id_foreign";`);
    this.addSql(`alter table "reports" drop constraint if exists "reports_reporter_id_foreign";`);
    this.addSql(`alter table "reports" alter column "reporter_id" drop not null;`);
    this.addSql(
      `alter table "reports" add constraint "reports_reporter_id_foreign" foreign key ("reporter_id") references "users" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`alter table "reports" add column "reported_display_name" varchar(255) not null default '';`);
    this.addSql(
      `update "reports" r set "reported_display_name" = u."display_name" from "users" u where u."id" = r."reported_id";`,
    );
    this.addSql(`alter table "reports" alter column "reported_display_name" drop default;`);
    this.addSql(`create index "reports_created_at_index" on "reports" ("created_at");`);
    this.addSql(`create table "report_messages" (
      "id" serial primary key,
      "report_id" int not null,
      "seq" int not null,
      "content" text not null,
      "sent_at" timestamptz not null);`);
    this.addSql(`create index "report_messages_report_id_index" on "report_messages" ("report_id");`);
    this.addSql(
      `alter table "report_messages" add constraint "report_messages_report_id_foreign" foreign key ("report_id") references "reports" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "report_messages";`);
    this.addSql(`drop index if exists "reports_created_at_index";`);
    this.addSql(`alter table "reports" drop column if exists "reported_display_name";`);
    this.addSql(
      `delete from "reports" where "reporter_id" is null or "reported_id" not in (select "id" from "users");`,
    );
    this.addSql(`alter table "reports" drop constraint if exists "reports_reporter_id_foreign";`);
    this.addSql(`alter table "reports" alter column "reporter_id" set not null;`);
    this.addSql(
      `alter table "reports" add constraint "reports_reporter_id_foreign" foreign key ("reporter_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "reports" add constraint "reports_reported_id_foreign" foreign key ("reported_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }
}
