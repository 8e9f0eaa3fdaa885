import type { ReactNode } from 'react';

/**
 * The frame of a card connecting an outside account (Spotify, Bluesky): an icon, the service's name
 * and a one-line state, then the card's own content.
 */
export function ConnectionCard({
  name,
  testId,
  icon,
  iconClassName,
  state,
  children,
}: {
  name: string;
  /** `<testId>` on the card and `<service>-state` on the state line, e.g. 'spotify'. */
  testId: string;
  icon: ReactNode;
  iconClassName: string;
  state: string;
  children: ReactNode;
}) {
  const titleId = `${testId}-card-title`;
  return (
    <section
      aria-labelledby={titleId}
      data-testid={`${testId}-card`}
      className="rounded-3xl border border-white/10 bg-white/[0.03] p-5 shadow-xl shadow-black/20"
    >
      <div className="flex items-center gap-3">
        <div className={`grid size-11 shrink-0 place-items-center rounded-2xl ${iconClassName}`}>{icon}</div>
        <div className="min-w-0 flex-1">
          <h2 id={titleId} className="text-base font-semibold text-white">
            {name}
          </h2>
          <p data-testid={`${testId}-state`} className="truncate text-xs text-zinc-400">
            {state}
          </p>
        </div>
      </div>
      {children}
    </section>
  );
}
