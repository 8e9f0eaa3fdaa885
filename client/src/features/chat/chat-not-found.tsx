import { CHAT_TEXTS } from '@shared/constants';
import { MessageSquareOff } from 'lucide-react';
import { Link } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';

/**
 * SPEC section 2: the match does not exist, is not the viewer's, or ended while the chat was open;
 * `accountDeleted`: it ended because the other person deleted their account, which it says.
 */
export function ChatNotFound({ accountDeleted = false }: { accountDeleted?: boolean }) {
  return (
    <main data-testid="chat-not-found" className="grid min-h-dvh place-items-center px-6">
      <div className="w-full max-w-sm text-center">
        <div className="mx-auto mb-6 grid size-16 place-items-center rounded-3xl bg-intent/15 text-intent-soft">
          <MessageSquareOff aria-hidden="true" className="size-8" />
        </div>
        <h1 className="text-2xl font-bold tracking-tight text-white">
          {accountDeleted ? CHAT_TEXTS.accountDeletedTitle : CHAT_TEXTS.notFoundTitle}
        </h1>
        <p className="mt-3 text-sm leading-relaxed text-zinc-400">
          {accountDeleted ? CHAT_TEXTS.accountDeletedBody : CHAT_TEXTS.notFoundBody}
        </p>
        <Link to="/matches" className={buttonClasses('primary', 'md', 'mt-8 w-full')}>
          {CHAT_TEXTS.backToMatches}
        </Link>
      </div>
    </main>
  );
}
