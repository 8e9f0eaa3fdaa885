import { INTENT_INFO, type Intent } from '@shared/constants';
import { Sparkles } from 'lucide-react';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { PlaceholderCard } from '@/components/ui/placeholder-card';

interface FeedPlaceholderProps {
  displayName?: string;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
}

/** Stand-in for the feed (built in a later issue): greeting, intent switcher, a note. */
export function FeedPlaceholder({ displayName, intent, onIntentChange }: FeedPlaceholderProps) {
  return (
    <div className="grid gap-6">
      <IntentSwitcher value={intent} onChange={onIntentChange} />
      <header>
        <p className="text-sm text-zinc-400">Welcome back,</p>
        <h1 data-testid="user-display-name" className="text-3xl font-bold tracking-tight text-white">
          {displayName ?? '\u00a0'}
        </h1>
      </header>
      <PlaceholderCard icon={Sparkles} title={`Your ${INTENT_INFO[intent].label} feed`}>
        <p>The feed arrives in a later release.</p>
        <p className="mt-1">
          Soon you will swipe through people who share your podcasts, one card at a time, looking for your next{' '}
          {INTENT_INFO[intent].companion}.
        </p>
      </PlaceholderCard>
    </div>
  );
}
