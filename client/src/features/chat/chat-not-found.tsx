import { CHAT_TEXTS } from '@shared/constants';
import { MessageSquareOff } from 'lucide-react';
import { Link } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';

/**
 * What the other person's chat says when a moderator suspended or banned someone: that it ended,
 * without telling why (the decision is between the moderators and that person; docs/moderation.md).
 */
export const SUSPENDED_CHAT_TEXTS = {
  title: 'This chat has ended',
  body: "This person's account is not available right now, so your conversation is closed. Your other matches are as they were.",
} as const;

const TEXTS = {
  notFound: { title: CHAT_TEXTS.notFoundTitle, body: CHAT_TEXTS.notFoundBody },
  accountDeleted: { title: CHAT_TEXTS.accountDeletedTitle, body: CHAT_TEXTS.accountDeletedBody },
  suspended: SUSPENDED_CHAT_TEXTS,
} as const;

/**
 * SPEC section 2: the match does not exist, is not the viewer's, or ended while the chat was open;
 * `accountDeleted`: it ended because the other person deleted their account, which it says;
 * `suspended`: the other person was suspended or banned.
 */
export function ChatNotFound({ reason = 'notFound' }: { reason?: keyof typeof TEXTS }) {
  const { title, body } = TEXTS[reason];
  return (
    <main data-testid="chat-not-found" className="grid min-h-dvh place-items-center px-6">
      <div className="w-full max-w-sm text-center">
        <div className="mx-auto mb-6 grid size-16 place-items-center rounded-3xl bg-intent/15 text-intent-soft">
          <MessageSquareOff aria-hidden="true" className="size-8" />
        </div>
        <h1 className="text-2xl font-bold tracking-tight text-white">{title}</h1>
        <p className="mt-3 text-sm leading-relaxed text-zinc-400">{body}</p>
        <Link to="/matches" className={buttonClasses('primary', 'md', 'mt-8 w-full')}>
          {CHAT_TEXTS.backToMatches}
        </Link>
      </div>
    </main>
  );
}
