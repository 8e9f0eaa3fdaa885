import { Migration } from '@mikro-orm/migrations';

export class Migration20261122023926 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "matches" add column "user1_acted" boolean not null default false, add column "user2_acted" boolean not null default false;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "matches" drop column "user1_acted", drop column "user2_acted";`);
  }
}
