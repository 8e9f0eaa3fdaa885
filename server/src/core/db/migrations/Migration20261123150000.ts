import { Migration } from '@mikro-orm/migrations';

/**
 * users.sign_up_method: how each account was opened, so development login can refuse accounts it
 * did not make. Existing rows: seeded demo people are 'demo'; accounts whose username the Spotify
 * sign-in generated ('spotify_<id>') and that carry that Spotify id are 'spotify'; the rest were
 * opened by development login.
 */
export class Migration20261123150000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "sign_up_method" text null;`);
    this.addSql(`update "users" set "sign_up_method" = case
      when "is_demo" then 'demo'
      when "spotify_id" is not null and "username" like 'spotify\\_%' then 'spotify'
      else 'dev_login' end;`);
    this.addSql(`alter table "users" alter column "sign_up_method" set not null;`);
    this.addSql(
      `alter table "users" add constraint "users_sign_up_method_check" check ("sign_up_method" in ('dev_login', 'spotify', 'demo'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop column "sign_up_method";`);
  }
}
