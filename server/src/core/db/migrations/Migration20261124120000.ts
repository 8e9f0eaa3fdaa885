import { Migration } from '@mikro-orm/migrations';

/**
 * When a login began (docs/auth.md): rotation issues fresh tokens, but never past a maximum total
 * lifetime counted from here. Existing sessions count from their own creation.
 */
export class Migration20261124120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sessions" add column "login_at" timestamptz null;`);
    this.addSql(`update "sessions" set "login_at" = "created_at";`);
    this.addSql(`alter table "sessions" alter column "login_at" set not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sessions" drop column "login_at";`);
  }
}
