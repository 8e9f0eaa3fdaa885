import { ArrowLeft, MessagesSquare } from 'lucide-react';
import { Link } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';
import { PlaceholderCard } from '@/components/ui/placeholder-card';

/** Stand-in for the chat screen (a later issue). Chat has its own header and no bottom navigation. */
export function ChatPlaceholder({ matchId }: { matchId: number | null }) {
  return (
    <main className="mx-auto grid min-h-dvh max-w-md content-start gap-6 px-5 pt-4 pb-10">
      <header className="flex items-center gap-3">
        <Link to="/matches" aria-label="Back to Matches" className={buttonClasses('ghost', 'icon')}>
          <ArrowLeft aria-hidden="true" className="size-5" />
        </Link>
        <h1 className="text-lg font-semibold text-white">Chat</h1>
      </header>
      <PlaceholderCard icon={MessagesSquare} title="Conversations are on their way">
        <p>Realtime chat arrives in a later release.</p>
        {matchId !== null ? <p className="mt-1 text-zinc-500">Match #{matchId}</p> : null}
      </PlaceholderCard>
    </main>
  );
}
