import { CHAT_TEXTS, LIMITS } from '@shared/constants';
import { SendHorizontal } from 'lucide-react';
import { type KeyboardEvent, type Ref, useEffect, useId, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';

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

/**
 * The message input (SPEC sections 2 and 5): Enter sends, Shift+Enter starts a new line; blank text,
 * text over the limit, or a send in flight cannot be sent. On failure nothing typed is lost.
 */
export function ChatComposer({ value, onChange, onSend, sending, error, inputRef }: ChatComposerProps) {
  const id = useId();
  const length = value.length;
  const tooLong = length > LIMITS.messageMaxLength;
  const canSend = value.trim().length > 0 && !tooLong && !sending;

  // What is in the input when a send comes back (the person may have typed on meanwhile).
  const latest = useRef(value);
  useEffect(() => {
    latest.current = value;
  });

  const submit = async () => {
    if (!canSend) return;
    const text = value;
    onChange('');
    const sent = await onSend(text.trim());
    if (sent) return;
    const typedSince = latest.current;
    onChange(typedSince.trim() ? `${text}\n${typedSince}` : text);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
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
      <div className="flex items-end gap-2">
        <label htmlFor={`${id}-input`} className="sr-only">
          Message
        </label>
        <textarea
          id={`${id}-input`}
          ref={inputRef}
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
