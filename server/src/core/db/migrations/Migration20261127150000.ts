import { Migration } from '@mikro-orm/migrations';

/**
 * Push notifications (docs/notifications.md): the devices that may receive pushes and what each
 * person wants pushed. A trigger stages the push of a new message in the job outbox in the same
 * transaction as the message, whichever path stored it (chat_store_message from a person or a demo
 * person), and only for a recipient with a device who has not turned message pushes off: the send
 * keeps its one round trip and a person without devices costs one index lookup. Every message of a
 * burst stages a row; the relay's enqueues collapse into the one delayed job of the conversation
 * (the job's dedupe key, shared/src/jobs.ts `pushSend`).
 */
export class Migration20261127150000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "push_devices" ("id" serial primary key, "user_id" int not null, "endpoint" varchar(2048) not null, "p256dh" varchar(200) not null, "auth" varchar(100) not null, "device_label" varchar(60) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null);`,
    );
    this.addSql(`create index "push_devices_user_id_index" on "push_devices" ("user_id");`);
    this.addSql(`alter table "push_devices" add constraint "push_devices_endpoint_unique" unique ("endpoint");`);
    this.addSql(
      `create table "notification_preferences" ("user_id" int not null, "matches" boolean not null default true, "messages" boolean not null default true, "videos" boolean not null default true, "previews" boolean not null default false, "paused" boolean not null default false, "quiet_start" varchar(5) null, "quiet_end" varchar(5) null, "time_zone" varchar(64) null, "updated_at" timestamptz not null, constraint "notification_preferences_pkey" primary key ("user_id"));`,
    );
    this.addSql(
      `alter table "push_devices" add constraint "push_devices_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_preferences" add constraint "notification_preferences_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create or replace function push_stage_message() returns trigger
language plpgsql as $fn$
declare
  recipient int;
begin
  select case when m.user1_id = new.sender_id then m.user2_id else m.user1_id end into recipient
    from matches m where m.id = new.match_id;
  if recipient is null
     or not exists (select 1 from push_devices d where d.user_id = recipient)
     or exists (select 1 from notification_preferences p
                 where p.user_id = recipient and (p.paused or not p.messages)) then
    return null;
  end if;
  insert into job_outbox (id, job_key, job_id, payload, options)
  select n.id, 'pushSend', 'outbox-' || n.id,
         jsonb_build_object('kind', 'messages', 'userId', recipient, 'matchId', new.match_id),
         jsonb_build_object('delayMs', ${MESSAGE_PUSH_GROUPING_MS})
    from (select nextval(pg_get_serial_sequence('job_outbox', 'id')) as id) n;
  return null;
end
$fn$;`);
    this.addSql(
      'create trigger messages_push after insert on messages for each row execute function push_stage_message();',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists messages_push on messages;');
    this.addSql('drop function if exists push_stage_message();');
    this.addSql(`drop table if exists "push_devices" cascade;`);
    this.addSql(`drop table if exists "notification_preferences" cascade;`);
  }
}

/**
 * How long the push of a conversation's first new message waits for more (a burst becomes one
 * notification). Written into the trigger: changing it takes a migration.
 */
const MESSAGE_PUSH_GROUPING_MS = 2000;
