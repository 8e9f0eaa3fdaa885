import { Migration } from '@mikro-orm/migrations';

/**
 * Chat: a per-match sequence on messages (ordered delivery, catch-up "after seq N"), the match's
 * last sequence (incremented under the match row's lock by each send), and how far each person has
 * read (read receipts, unread marks). No messages existed before this migration.
 */
export class Migration20261123170000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "messages" add column "seq" int not null;`);
    this.addSql(`drop index if exists "messages_match_id_id_index";`);
    this.addSql(`alter table "messages" add constraint "messages_match_id_seq_unique" unique ("match_id", "seq");`);
    this.addSql(
      `alter table "matches" add column "last_message_seq" int not null default 0, add column "user1_read_seq" int not null default 0, add column "user2_read_seq" int not null default 0;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "messages" drop constraint "messages_match_id_seq_unique";`);
    this.addSql(`alter table "messages" drop column "seq";`);
    this.addSql(`create index "messages_match_id_id_index" on "messages" ("match_id", "id");`);
    this.addSql(
      `alter table "matches" drop column "last_message_seq", drop column "user1_read_seq", drop column "user2_read_seq";`,
    );
  }
}
