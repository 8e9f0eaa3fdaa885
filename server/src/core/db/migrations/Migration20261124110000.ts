import { Migration } from '@mikro-orm/migrations';

/**
 * One report per reporter and reported person (docs/matches.md): a mass reporter cannot inflate the
 * count against someone by reporting again. Existing repeats keep their earliest row.
 */
export class Migration20261124110000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`delete from "reports" r using "reports" earlier
      where r.reporter_id = earlier.reporter_id and r.reported_id = earlier.reported_id and r.id > earlier.id;`);
    this.addSql(`create unique index "reports_reporter_reported_unique" on "reports" ("reporter_id", "reported_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "reports_reporter_reported_unique";`);
  }
}
