import { INTENT_INFO, type Intent } from '@shared/constants';
import { MessageCircleHeart } from 'lucide-react';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { PlaceholderCard } from '@/components/ui/placeholder-card';

interface MatchesPlaceholderProps {
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
}

/** Stand-in for the matches grid (a later issue). */
export function MatchesPlaceholder({ intent, onIntentChange }: MatchesPlaceholderProps) {
  return (
    <div className="grid gap-6">
      <IntentSwitcher value={intent} onChange={onIntentChange} />
      <h1 className="text-3xl font-bold tracking-tight text-white">Matches</h1>
      <PlaceholderCard icon={MessageCircleHeart} title={`${INTENT_INFO[intent].longLabel} matches`}>
        <p>Matches arrive in a later release.</p>
        <p className="mt-1">Everyone you match with, and your conversations, will be listed here.</p>
      </PlaceholderCard>
    </div>
  );
}
