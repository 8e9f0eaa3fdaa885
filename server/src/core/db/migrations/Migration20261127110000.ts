import { Migration } from '@mikro-orm/migrations';

/**
 * Moderation (docs/moderation.md): roles, what is in force against a person (hidden from feeds,
 * suspended, banned), reports that close and keep the profile as the reporter saw it, the
 * append-only history of moderation events (the audit log), claims, appeals and the notices people
 * receive.
 */
export class Migration20261127110000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users"
      add column "role" text check ("role" in ('moderator', 'admin')) null,
      add column "feed_hidden" text check ("feed_hidden" in ('moderator', 'automatic')) null,
      add column "suspended_until" timestamptz null,
      add column "banned_at" timestamptz null;`);
    this.addSql(`alter table "reports"
      add column "reported_profile" jsonb null,
      add column "closed_at" timestamptz null;`);
    // The queue reads open reports by person.
    this.addSql(`create index "reports_open_reported_index" on "reports" ("reported_id") where "closed_at" is null;`);

    this.addSql(`create table "moderation_events" (
      "id" serial primary key,
      "subject_id" int not null,
      "moderator_id" int null,
      "moderator_username" varchar(255) null,
      "kind" text check ("kind" in ('dismiss', 'warn', 'hide', 'suspend', 'ban', 'undo', 'escalate', 'autoHide', 'appealUpheld', 'appealReversed')) not null,
      "reason" text check ("reason" in ('spam', 'harassment', 'inappropriate', 'fake_profile', 'other')) not null,
      "rule" text check ("rule" in ('respect', 'consent', 'authenticity', 'spam', 'safety')) null,
      "explanation" text not null,
      "ends_at" timestamptz null,
      "reverses_id" int null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "moderation_events_subject_id_index" on "moderation_events" ("subject_id");`);
    this.addSql(`create index "moderation_events_created_at_index" on "moderation_events" ("created_at");`);
    // The audit log is never edited: no update ever, and deletes only by the retention purge
    // (which sets podmatch.retention_purge for its transaction).
    this.addSql(`create function "moderation_events_append_only"() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' and current_setting('podmatch.retention_purge', true) = 'on' then return old; end if;
        raise exception 'moderation_events is append-only (the audit log)';
      end $$;`);
    this.addSql(`create trigger "moderation_events_append_only" before update or delete on "moderation_events"
      for each row execute function "moderation_events_append_only"();`);

    this.addSql(`create table "moderation_claims" (
      "subject_id" int not null primary key,
      "moderator_id" int not null,
      "claimed_at" timestamptz not null);`);
    this.addSql(`create index "moderation_claims_moderator_id_index" on "moderation_claims" ("moderator_id");`);
    this.addSql(`alter table "moderation_claims" add constraint "moderation_claims_moderator_id_foreign"
      foreign key ("moderator_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`create table "appeals" (
      "id" serial primary key,
      "event_id" int not null,
      "user_id" int null,
      "text" varchar(2000) not null,
      "state" text check ("state" in ('open', 'upheld', 'reversed')) not null default 'open',
      "decided_by" int null,
      "decision_event_id" int null,
      "decision_explanation" text null,
      "created_at" timestamptz not null,
      "decided_at" timestamptz null);`);
    this.addSql(`alter table "appeals" add constraint "appeals_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "appeals_user_id_index" on "appeals" ("user_id");`);
    this.addSql(`alter table "appeals" add constraint "appeals_event_id_foreign"
      foreign key ("event_id") references "moderation_events" ("id") on update cascade;`);
    this.addSql(`alter table "appeals" add constraint "appeals_user_id_foreign"
      foreign key ("user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`create table "moderation_notices" (
      "id" serial primary key,
      "user_id" int not null,
      "event_id" int not null,
      "kind" text check ("kind" in ('action', 'appealOutcome')) not null,
      "appeal_id" int null,
      "seen_at" timestamptz null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "moderation_notices_user_id_index" on "moderation_notices" ("user_id");`);
    this.addSql(`alter table "moderation_notices" add constraint "moderation_notices_user_id_foreign"
      foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "moderation_notices" add constraint "moderation_notices_event_id_foreign"
      foreign key ("event_id") references "moderation_events" ("id") on update cascade;`);
    this.addSql(`alter table "moderation_notices" add constraint "moderation_notices_appeal_id_foreign"
      foreign key ("appeal_id") references "appeals" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "moderation_notices" cascade;`);
    this.addSql(`drop table if exists "appeals" cascade;`);
    this.addSql(`drop table if exists "moderation_claims" cascade;`);
    this.addSql(`drop table if exists "moderation_events" cascade;`);
    this.addSql(`drop function if exists "moderation_events_append_only"();`);
    this.addSql(`drop index if exists "reports_open_reported_index";`);
    this.addSql(`alter table "reports" drop column "reported_profile", drop column "closed_at";`);
    this.addSql(`alter table "users" drop column "role", drop column "feed_hidden",
      drop column "suspended_until", drop column "banned_at";`);
  }
}
