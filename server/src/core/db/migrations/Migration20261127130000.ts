import { Migration } from '@mikro-orm/migrations';

/**
 * The chat's safety nudge (docs/chat.md, "The safety nudge"): `messages.flagged` says the server's
 * word check (shared/src/moderation/message-nudge.ts) found the text likely to hurt; the message is
 * delivered all the same, and its recipient is offered to report it. chat_store_message
 * (Migration20261123180000) takes the flag and returns it, a repeated clientId answering the
 * stored one; `down` puts the four-argument function back.
 */
export class Migration20261127130000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "messages" add column "flagged" boolean not null default false;`);
    this.addSql('drop function if exists chat_store_message(int, int, text, uuid);');
    this.addSql(chatStoreMessage(true));
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists chat_store_message(int, int, text, uuid, boolean);');
    this.addSql(chatStoreMessage(false));
    this.addSql(`alter table "messages" drop column "flagged";`);
  }
}

/**
 * The function of Migration20261123180000 (its comment explains the steps), with the flag when
 * `withFlag` (stored on insert, returned for a new and a repeated message), else as it was.
 */
function chatStoreMessage(withFlag: boolean): string {
  const param = withFlag ? ', p_flagged boolean' : '';
  const column = withFlag ? ', flagged boolean' : '';
  const none = withFlag ? ', null::boolean' : '';
  return `create or replace function chat_store_message(
  p_match_id int, p_sender_id int, p_content text, p_client_id uuid${param})
returns table (outcome text, id int, seq int, client_id uuid, content text, created_at timestamptz, recipient_id int,
               sender_unread_before boolean, recipient_unread_before boolean${column})
language plpgsql volatile as $fn$
declare
  m matches%rowtype;
  side int;
  unread1 boolean;
  unread2 boolean;
  found_msg messages%rowtype;
  new_seq int;
begin
  -- 1. Lock the match row; a concurrent unmatch is seen here (the row is re-checked after the wait).
  select * into m from matches mm
   where mm.id = p_match_id and (mm.user1_id = p_sender_id or mm.user2_id = p_sender_id)
     and mm.mutual_at is not null and mm.unmatched_at is null
   for update;
  if not found then
    return query select 'not_found'::text, null::int, null::int, null::uuid, null::text, null::timestamptz, null::int, null::boolean, null::boolean${none};
    return;
  end if;
  -- 2. A fresh snapshot: a block that committed while this send waited for the row counts.
  perform 1 from blocks b
   where (b.blocker_id = m.user1_id and b.blocked_id = m.user2_id)
      or (b.blocker_id = m.user2_id and b.blocked_id = m.user1_id);
  if found then
    return query select 'not_found'::text, null::int, null::int, null::uuid, null::text, null::timestamptz, null::int, null::boolean, null::boolean${none};
    return;
  end if;
  side := case when m.user1_id = p_sender_id then 1 else 2 end;
  unread1 := m.user1_seen_at is null or m.last_message_seq > m.user1_read_seq;
  unread2 := m.user2_seen_at is null or m.last_message_seq > m.user2_read_seq;
  -- 3. Idempotent: a repeated clientId answers the stored message.
  if p_client_id is not null then
    select * into found_msg from messages x where x.sender_id = p_sender_id and x.client_id = p_client_id;
    if found then
      return query select (case when found_msg.match_id = p_match_id then 'existing' else 'client_id_taken' end)::text,
        found_msg.id, found_msg.seq, found_msg.client_id, found_msg.content, found_msg.created_at,
        case when side = 1 then m.user2_id else m.user1_id end,
        case when side = 1 then unread1 else unread2 end, case when side = 1 then unread2 else unread1 end${withFlag ? ',\n        found_msg.flagged' : ''};
      return;
    end if;
  end if;
  -- 4. The next seq of the match; sending reads the conversation up to the new message.
  update matches mm set
    last_message_seq = mm.last_message_seq + 1,
    user1_read_seq = case when side = 1 then mm.last_message_seq + 1 else mm.user1_read_seq end,
    user2_read_seq = case when side = 2 then mm.last_message_seq + 1 else mm.user2_read_seq end,
    user1_seen_at = case when side = 1 then coalesce(mm.user1_seen_at, now()) else mm.user1_seen_at end,
    user2_seen_at = case when side = 2 then coalesce(mm.user2_seen_at, now()) else mm.user2_seen_at end
   where mm.id = p_match_id
   returning mm.last_message_seq into new_seq;
  return query
    insert into messages as x (match_id, sender_id, content, seq, client_id, created_at${withFlag ? ', flagged' : ''})
    values (p_match_id, p_sender_id, p_content, new_seq, p_client_id, clock_timestamp()${withFlag ? ', p_flagged' : ''})
    returning 'created'::text, x.id, x.seq, x.client_id, x.content, x.created_at,
      case when side = 1 then m.user2_id else m.user1_id end,
      case when side = 1 then unread1 else unread2 end, case when side = 1 then unread2 else unread1 end${withFlag ? ', x.flagged' : ''};
end
$fn$;`;
}
