import { CHAT_TEXTS, LIMITS } from '@shared/constants';
import { SendHorizontal } from 'lucide-react';
import { type KeyboardEvent, type Ref, useEffect, useId, useImperativeHandle, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { loadedNudgeCheck, loadNudgeCheck } from './nudge-check';

/** From this length on, a counter shows how close the message is to the limit. */
export const COUNTER_FROM = LIMITS.messageMaxLength - 200;

interface ChatComposerProps {
  value: string;
  onChange: (value: string) => void;
  /** Sends the text; resolves to false when it failed (the text then goes back into the input). */
  onSend: (text: string) => Promise<boolean>;
  sending: boolean;
  /** The last send's failure, shown under the input. */
  error: string | null;
  inputRef?: Ref<HTMLTextAreaElement>;
}

/** The safety nudge's question (docs/chat.md, "The safety nudge"). */
export const NUDGE_TEXTS = {
  title: 'Are you sure?',
  body: 'This message may come across as hurtful.',
  edit: 'Edit',
  sendAnyway: 'Send anyway',
} as const;

/**
 * The message input (SPEC sections 2 and 5): Enter sends, Shift+Enter starts a new line; blank text,
 * text over the limit, or a send in flight cannot be sent. On failure nothing typed is lost.
 * Text the word check flags (isMessageFlagged, loaded apart: nudge-check.ts) is not sent at once: "Are you sure?" asks first, with
 * Edit (back to the text; also Escape) and Send anyway. The server flags it again on its own.
 */
export function ChatComposer({ value, onChange, onSend, sending, error, inputRef }: ChatComposerProps) {
  const id = useId();
  const length = value.length;
  const tooLong = length > LIMITS.messageMaxLength;
  const canSend = value.trim().length > 0 && !tooLong && !sending;
  // The text the question is about; any change to the input takes the question away.
  const [questioned, setQuestioned] = useState<string | null>(null);
  const asking = questioned !== null && questioned === value;
  const input = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(inputRef, () => input.current as HTMLTextAreaElement);
  const editButton = useRef<HTMLButtonElement>(null);

  // What is in the input when a send comes back (the person may have typed on meanwhile).
  const latest = useRef(value);
  useEffect(() => {
    latest.current = value;
  });

  // The question takes the focus (on its safe choice, Edit) so that a second Enter cannot send.
  useEffect(() => {
    if (asking) editButton.current?.focus();
  }, [asking]);
  useEffect(() => {
    void loadNudgeCheck();
  }, []);
  // A send waiting for the word check to load: a second Enter meanwhile is not a second send.
  const checking = useRef(false);

  const send = async () => {
    setQuestioned(null);
    const text = value;
    onChange('');
    const sent = await onSend(text.trim());
    if (sent) return;
    const typedSince = latest.current;
    onChange(typedSince.trim() ? `${text}\n${typedSince}` : text);
  };

  const submit = async () => {
    if (!canSend || checking.current) return;
    if (asking) {
      editButton.current?.focus();
      return;
    }
    let isFlagged = loadedNudgeCheck();
    if (!isFlagged) {
      checking.current = true;
      isFlagged = await loadNudgeCheck().finally(() => {
        checking.current = false;
      });
      if (latest.current !== value) return; // typed on meanwhile: the next Enter decides
    }
    if (isFlagged(value.trim())) {
      setQuestioned(value);
      return;
    }
    await send();
  };

  const edit = () => {
    setQuestioned(null);
    const field = input.current;
    field?.focus();
    field?.setSelectionRange(field.value.length, field.value.length);
  };

  const sendAnyway = () => {
    if (!canSend) return;
    input.current?.focus();
    void send();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape' && asking) {
      event.preventDefault();
      setQuestioned(null);
      return;
    }
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    void submit();
  };

  const describedBy = [tooLong ? `${id}-too-long` : null, length >= COUNTER_FROM ? `${id}-count` : null]
    .filter(Boolean)
    .join(' ');

  return (
    <form
      aria-label="Send a message"
      className="grid gap-1.5"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {asking ? (
        <div
          role="alertdialog"
          aria-labelledby={`${id}-nudge-title`}
          aria-describedby={`${id}-nudge-body`}
          data-testid="send-nudge"
          onKeyDown={(event) => {
            if (event.key !== 'Escape') return;
            event.preventDefault();
            edit();
          }}
          className="grid gap-2 rounded-2xl border border-amber-300/30 bg-amber-300/[0.08] px-4 py-3"
        >
          <div className="grid gap-0.5">
            <p id={`${id}-nudge-title`} className="text-sm font-semibold text-amber-100">
              {NUDGE_TEXTS.title}
            </p>
            <p id={`${id}-nudge-body`} className="text-sm text-zinc-300">
              {NUDGE_TEXTS.body}
            </p>
          </div>
          <div className="flex flex-wrap justify-end gap-2">
            <Button ref={editButton} variant="ghost" size="sm" onClick={edit}>
              {NUDGE_TEXTS.edit}
            </Button>
            <Button variant="outline" size="sm" onClick={sendAnyway} disabled={!canSend}>
              {NUDGE_TEXTS.sendAnyway}
            </Button>
          </div>
        </div>
      ) : null}
      <div className="flex items-end gap-2">
        <label htmlFor={`${id}-input`} className="sr-only">
          Message
        </label>
        <textarea
          id={`${id}-input`}
          ref={input}
          rows={1}
          value={value}
          placeholder={CHAT_TEXTS.placeholder}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
          aria-invalid={tooLong || undefined}
          aria-describedby={describedBy || undefined}
          className={cn(
            'field-sizing-content max-h-40 min-h-11 w-full resize-none rounded-2xl border border-white/10 bg-white/[0.04] px-4 py-2.5',
            'text-sm text-zinc-100 placeholder:text-zinc-500 transition focus:border-intent-soft/70 focus:outline-none',
            tooLong && 'border-red-500/70',
          )}
        />
        <Button type="submit" size="icon" aria-label="Send message" disabled={!canSend} className="shrink-0">
          {sending ? <Spinner className="size-5" /> : <SendHorizontal aria-hidden="true" className="size-5" />}
        </Button>
      </div>
      {tooLong || error || length >= COUNTER_FROM ? (
        <div className="flex items-start justify-between gap-3 px-1 text-xs">
          <div className="grid gap-0.5">
            {tooLong ? (
              <p id={`${id}-too-long`} role="alert" className="text-red-300">
                {CHAT_TEXTS.tooLong}
              </p>
            ) : null}
            {error ? (
              <p role="alert" data-testid="send-error" className="text-red-300">
                {error}
              </p>
            ) : null}
          </div>
          {length >= COUNTER_FROM ? (
            <p
              id={`${id}-count`}
              data-testid="message-length"
              className={cn('ml-auto tabular-nums', tooLong ? 'text-red-300' : 'text-zinc-400')}
            >
              {length.toLocaleString('en')} / {LIMITS.messageMaxLength.toLocaleString('en')}
            </p>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
