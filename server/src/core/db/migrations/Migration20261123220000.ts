import { Migration } from '@mikro-orm/migrations';

/**
 * Usernames compare case-insensitively: "Maya_Newbie" is the account "maya_newbie", not a second
 * one. The unique constraint on `username` becomes a unique index on `lower(username)`.
 *
 * Existing clashes first: in each group of usernames equal but for case, the oldest account
 * (created_at, then id) keeps its name; every other one, oldest first, gets the first free
 * `<name>_2`, `<name>_3`, ... (free ignoring case, the name cut so the whole stays within the
 * 40-character username limit). Nothing else changes: no account, display name, session or
 * library is deleted or touched, so a renamed person is still who they were, under a new login name.
 */
/** LIMITS.usernameMaxLength when this migration was written (a migration does not follow later changes). */
const USERNAME_MAX_LENGTH = 40;

export class Migration20261123220000 extends Migration {
  override async up(): Promise<void> {
    // A plain index for the look-ups of the renaming loop; replaced by the unique one below.
    this.addSql(`create index "users_username_lower_tmp" on "users" (lower("username"));`);
    this.addSql(`do $$
      declare
        clash record;
        n int;
        suffix text;
        candidate text;
      begin
        for clash in
          select id, username from (
            select id, username,
                   row_number() over (partition by lower(username) order by created_at, id) as position
              from users
          ) ranked
           where position > 1
           order by lower(username), position
        loop
          n := 2;
          loop
            suffix := '_' || n;
            candidate := left(clash.username, ${USERNAME_MAX_LENGTH} - length(suffix)) || suffix;
            exit when not exists (select 1 from users where lower(username) = lower(candidate));
            n := n + 1;
          end loop;
          update users set username = candidate, updated_at = now() where id = clash.id;
        end loop;
      end $$;`);
    this.addSql(`drop index "users_username_lower_tmp";`);
    this.addSql(`alter table "users" drop constraint "users_username_unique";`);
    this.addSql(`create unique index "users_username_lower_unique" on "users" (lower("username"));`);
  }

  override async down(): Promise<void> {
    // Renamed accounts keep their new names: they are unique under either rule.
    this.addSql(`drop index if exists "users_username_lower_unique";`);
    this.addSql(`alter table "users" add constraint "users_username_unique" unique ("username");`);
  }
}
