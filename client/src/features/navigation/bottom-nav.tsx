import { INTENT_INFO, type Intent } from '@shared/constants';
import { House, type LucideIcon, MessageCircleHeart, UserRound } from 'lucide-react';
import { Link } from 'react-router-dom';
import { cn } from '@/lib/cn';

export type NavTab = 'profile' | 'feed' | 'matches';

export interface BottomNavProps {
  activeTab: NavTab;
  currentIntent: Intent;
  /** Pending feed profiles for the current intent. */
  feedNotifications?: number;
  matchNotificationsByIntent?: Partial<Record<Intent, number>>;
}

const TABS: ReadonlyArray<{ tab: NavTab; label: string; to: string; icon: LucideIcon }> = [
  { tab: 'profile', label: 'My Profile', to: '/profile', icon: UserRound },
  { tab: 'feed', label: 'Feed', to: '/', icon: House },
  { tab: 'matches', label: 'Matches', to: '/matches', icon: MessageCircleHeart },
];

// The visible number is decorative; screen readers get "Feed, 3 new profiles" from the label.
function Badge({ count, testId }: { count: number; testId: string }) {
  return (
    <span
      aria-hidden="true"
      data-testid={testId}
      className="absolute -top-1.5 left-1/2 ml-2 grid h-5 min-w-5 place-items-center whitespace-nowrap rounded-full bg-intent px-1.5 text-[11px] font-bold leading-none text-white ring-2 ring-ink"
    >
      {count > 99 ? '99+' : count}
    </span>
  );
}

/** Fixed bottom bar: My Profile, Feed, Matches. The active tab wears the current intent's colour. */
export function BottomNav({
  activeTab,
  currentIntent,
  feedNotifications = 0,
  matchNotificationsByIntent = {},
}: BottomNavProps) {
  const color = INTENT_INFO[currentIntent].color;
  const unreadMatches = matchNotificationsByIntent[currentIntent] ?? 0;
  return (
    <nav
      aria-label="Main"
      className="fixed inset-x-0 bottom-0 z-40 border-t border-white/10 bg-ink/85 pb-[env(safe-area-inset-bottom)] backdrop-blur-xl"
    >
      <ul className="mx-auto grid h-18 max-w-md grid-cols-3">
        {TABS.map(({ tab, label, to, icon: Icon }) => {
          const active = tab === activeTab;
          const badge = tab === 'feed' ? feedNotifications : tab === 'matches' ? unreadMatches : 0;
          const noun = tab === 'feed' ? 'new profiles' : 'unread matches';
          return (
            <li key={tab} className="grid">
              <Link
                to={to}
                data-testid={`nav-${tab}`}
                aria-current={active ? 'page' : undefined}
                style={active ? { color } : undefined}
                className={cn(
                  'relative flex flex-col items-center justify-center gap-1 text-xs font-medium transition-colors',
                  active ? 'font-semibold' : 'text-zinc-500 hover:text-zinc-300',
                )}
              >
                <span className="relative">
                  <span
                    aria-hidden="true"
                    className={cn(
                      'grid h-8 w-14 place-items-center rounded-full transition-colors',
                      active && 'bg-current/15',
                    )}
                  >
                    <Icon className="size-5" strokeWidth={active ? 2.4 : 2} />
                  </span>
                  {badge > 0 ? <Badge count={badge} testId={`nav-${tab}-badge`} /> : null}
                </span>
                {/* Intent colours are too dark for small text on the dark bar: the label stays light. */}
                <span className={active ? 'text-zinc-100' : undefined}>{label}</span>
                {badge > 0 ? <span className="sr-only">{`, ${badge} ${noun}`}</span> : null}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
