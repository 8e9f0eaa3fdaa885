import { Migration } from '@mikro-orm/migrations';

/**
 * Setup progress and the listening quiz (docs/profiles.md). People who already have an account
 * (seeded or signed up before the wizard existed) count as set up, so only new people see it.
 */
export class Migration20261124000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "setup_step" smallint not null default 0,
      add column "setup_completed_at" timestamptz null,
      add column "quiz_answers" jsonb not null default '{}';`);
    this.addSql(`update "users" set "setup_completed_at" = "created_at";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "users" drop column "setup_step", drop column "setup_completed_at", drop column "quiz_answers";`,
    );
  }
}
