import { Migration } from '@mikro-orm/migrations';

/**
 * The transactional outbox of jobs (docs/operations.md, "Jobs that cannot be lost"): a job written in
 * the same transaction as the change that needs it, queued in Redis by the relay afterwards, so a
 * Redis failure between commit and enqueue loses nothing.
 */
export class Migration20261124140000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "job_outbox" (
      "id" bigserial primary key,
      "job_key" text not null,
      "job_id" text not null,
      "payload" jsonb not null,
      "options" jsonb not null default '{}',
      "created_at" timestamptz not null default now(),
      "attempts" int not null default 0,
      "last_error" text null);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "job_outbox";`);
  }
}
