import { CHAT_TEXTS } from '@shared/constants';
import { Sparkles } from 'lucide-react';
import { Button } from '@/components/ui/button';

/** No messages yet (SPEC section 2): both enjoy podcasts, and an icebreaker fills the input. */
export function ChatEmpty({ name, onIcebreaker }: { name: string; onIcebreaker: () => void }) {
  return (
    <div data-testid="chat-empty" className="grid justify-items-center gap-3 px-6 py-12 text-center">
      <h2 className="text-xl font-semibold text-white">{CHAT_TEXTS.emptyTitle}</h2>
      <p className="max-w-xs text-sm text-zinc-400">
        You and {name} both enjoy podcasts. Say hello, or let an icebreaker start it for you.
      </p>
      <Button variant="outline" onClick={onIcebreaker}>
        <Sparkles aria-hidden="true" className="size-4" />
        {CHAT_TEXTS.icebreakerButton}
      </Button>
    </div>
  );
}
