import type { Message } from '@shared/schemas/chat';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { relativeTime } from '@/lib/relative-time';
import type { Conversation, PendingMessage } from './conversation-cache';
import { useNow } from './use-chat-live';
import { useChatScroll } from './use-chat-scroll';

type Item = { key: string; own: boolean; content: string; createdAt: string; seq: number | null; flagged: boolean };

/** A stored message keeps the key of its pending copy (its clientId), so the bubble is not re-created. */
function toItems(userId: number, messages: readonly Message[], pending: readonly PendingMessage[]): Item[] {
  return [
    ...messages.map((m) => ({
      key: m.clientId ?? `seq-${m.seq}`,
      own: m.senderId === userId,
      content: m.content,
      createdAt: m.createdAt,
      seq: m.seq,
      flagged: m.flagged,
    })),
    ...pending.map((p) => ({
      key: p.clientId,
      own: true,
      content: p.content,
      createdAt: p.createdAt,
      seq: null,
      flagged: false,
    })),
  ];
}

/**
 * Under a message of the other person's that the server flagged (docs/chat.md, "The safety nudge"):
 * the way to report them. Never under one's own messages.
 */
function BotherLine({ name, onReport }: { name: string; onReport: () => void }) {
  // The button keeps a 44 px tap target; the negative margin keeps the line close to its message.
  return (
    <p data-testid="bother-line" className="-mt-2 flex items-center gap-1 pl-2 text-xs text-zinc-400">
      Does this bother you?
      <button
        type="button"
        aria-label={`Report ${name}`}
        onClick={onReport}
        className="inline-flex h-11 items-center rounded-full px-2 font-semibold text-intent-soft underline underline-offset-2 transition hover:bg-white/[0.06]"
      >
        Report
      </button>
    </p>
  );
}

interface MessageBubbleProps {
  item: Item;
  read: boolean;
  now: number;
  name: string;
  onReport: () => void;
}

function MessageBubble({ item, read, now, name, onReport }: MessageBubbleProps) {
  const pending = item.seq === null;
  return (
    <li
      data-testid="message"
      data-own={item.own}
      data-pending={pending}
      data-seq={item.seq ?? undefined}
      className={cn('flex flex-col gap-1', item.own ? 'items-end' : 'items-start')}
    >
      <p
        className={cn(
          'max-w-[80%] whitespace-pre-wrap break-words rounded-3xl px-4 py-2.5 text-sm leading-relaxed',
          item.own ? 'rounded-br-lg bg-intent text-white' : 'rounded-bl-lg bg-white/[0.07] text-zinc-100',
          pending && 'opacity-70',
        )}
      >
        {item.content}
      </p>
      <p className="flex gap-1.5 px-2 text-[11px] text-zinc-500">
        <time dateTime={item.createdAt} title={new Date(item.createdAt).toLocaleString()}>
          {relativeTime(item.createdAt, now)}
        </time>
        {pending ? <span>Sending…</span> : null}
        {!pending && item.own && read ? <span data-testid="read-receipt">Read</span> : null}
      </p>
      {item.flagged && !item.own ? <BotherLine name={name} onReport={onReport} /> : null}
    </li>
  );
}

interface MessageListProps {
  userId: number;
  conversation: Conversation;
  /** Own messages up to this seq were read by the other person. */
  otherReadSeq: number;
  name: string;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  /** Opens the report of the other person (from a flagged message's "Does this bother you?"). */
  onReport: () => void;
}

/** The conversation, oldest first, own messages on the right; older ones load when scrolling up. */
export function MessageList({
  userId,
  conversation,
  otherReadSeq,
  name,
  loadingOlder,
  onLoadOlder,
  onReport,
}: MessageListProps) {
  const now = useNow(30_000);
  const items = toItems(userId, conversation.messages, conversation.pending);
  const last = items.at(-1);
  const { ref, onScroll } = useChatScroll({
    firstKey: items[0]?.key,
    lastKey: last?.key,
    lastIsOwn: last?.own ?? false,
    onNearTop: () => {
      if (conversation.hasOlder && !loadingOlder) onLoadOlder();
    },
  });

  return (
    <div
      ref={ref}
      onScroll={onScroll}
      data-testid="message-scroller"
      className="min-h-0 flex-1 overflow-y-auto px-4 py-4"
    >
      {conversation.hasOlder ? (
        <div className="mb-3 flex justify-center">
          <Button variant="ghost" size="sm" onClick={onLoadOlder} disabled={loadingOlder}>
            {loadingOlder ? <Spinner /> : null}
            Load earlier messages
          </Button>
        </div>
      ) : null}
      {/* The live log wraps the list: an <ol> with role="log" would no longer be a list for its items. */}
      <div aria-label={`Messages with ${name}`} role="log" aria-live="polite">
        <ol className="grid gap-3">
          {items.map((item) => (
            <MessageBubble
              key={item.key}
              item={item}
              now={now}
              read={item.seq !== null && item.seq <= otherReadSeq}
              name={name}
              onReport={onReport}
            />
          ))}
        </ol>
      </div>
    </div>
  );
}
