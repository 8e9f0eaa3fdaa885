import { Wand2 } from 'lucide-react';
import { Link } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';
import { PlaceholderCard } from '@/components/ui/placeholder-card';

/** Stand-in for the five-step setup wizard (a later issue). */
export function SetupPlaceholder() {
  return (
    <main className="mx-auto grid min-h-dvh max-w-md content-center gap-6 px-5 py-10">
      <h1 className="text-center text-3xl font-bold tracking-tight text-white">Set up your profile</h1>
      <PlaceholderCard icon={Wand2} title="The setup wizard is on its way">
        <p>The profile setup wizard arrives in a later release.</p>
      </PlaceholderCard>
      <Link to="/" className={buttonClasses('primary', 'md', 'w-full')}>
        Go to Feed
      </Link>
    </main>
  );
}
