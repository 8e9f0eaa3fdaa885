import * as Tabs from '@radix-ui/react-tabs';
import type { Role } from '@shared/schemas/moderation';
import { ArrowLeft, ShieldCheck } from 'lucide-react';
import { Link, useSearchParams } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';
import { AppealsPanel } from './appeals-panel';
import { AuditLogPanel } from './audit-log-panel';
import { QueuePanel } from './queue-panel';
import { TransparencyPanel } from './transparency-panel';

type Tab = 'queue' | 'appeals' | 'audit' | 'transparency';

const TABS: ReadonlyArray<{ tab: Tab; label: string; adminOnly: boolean }> = [
  { tab: 'queue', label: 'Queue', adminOnly: false },
  { tab: 'appeals', label: 'Appeals', adminOnly: false },
  { tab: 'audit', label: 'Audit log', adminOnly: true },
  { tab: 'transparency', label: 'Transparency', adminOnly: true },
];

/**
 * Moderation (/moderation, docs/moderation.md), for moderators and admins: the queue of reported
 * people, the appeals, and for admins the audit log and the transparency counts. The section is in
 * the URL (?tab=), so a link or a reload opens the same one. Wider than the app's phone column: a
 * moderator on a laptop reads the queue and a person side by side.
 */
export function ModerationScreen({ role, userId }: { role: Role; userId: number }) {
  const [params, setParams] = useSearchParams();
  const tabs = TABS.filter((t) => !t.adminOnly || role === 'admin');
  const requested = params.get('tab');
  const tab = tabs.find((t) => t.tab === requested)?.tab ?? 'queue';

  const choose = (next: string) =>
    setParams((current) => {
      // The queue's own parameters stay for when the moderator comes back to it.
      const nextParams = new URLSearchParams(current);
      if (next === 'queue') nextParams.delete('tab');
      else nextParams.set('tab', next);
      return nextParams;
    });

  return (
    <div className="min-h-dvh">
      <header className="sticky top-0 z-30 border-b border-white/10 bg-ink/85 backdrop-blur-xl">
        <div className="mx-auto flex w-full max-w-7xl items-center gap-3 px-4 py-3 sm:px-6">
          <Link to="/profile" aria-label="Back to profile" className={buttonClasses('ghost', 'icon', '-ml-2 shrink-0')}>
            <ArrowLeft aria-hidden="true" className="size-5" />
          </Link>
          <ShieldCheck aria-hidden="true" className="size-6 text-intent-soft" />
          <h1 className="text-xl font-bold tracking-tight text-white">Moderation</h1>
          <span className="ml-auto rounded-full bg-white/[0.08] px-3 py-1 text-xs font-medium text-zinc-200">
            {role === 'admin' ? 'Admin' : 'Moderator'}
          </span>
        </div>
      </header>
      <Tabs.Root value={tab} onValueChange={choose} className="mx-auto grid w-full max-w-7xl gap-5 px-4 py-5 sm:px-6">
        <Tabs.List
          aria-label="Moderation sections"
          className="grid grid-cols-2 gap-1 rounded-3xl bg-white/[0.06] p-1 sm:flex sm:justify-self-start sm:rounded-full"
        >
          {tabs.map(({ tab: value, label }) => (
            <Tabs.Trigger
              key={value}
              value={value}
              className="min-h-11 shrink-0 rounded-full px-4 text-sm font-semibold whitespace-nowrap text-zinc-300 data-[state=active]:bg-white data-[state=active]:text-zinc-950"
            >
              {label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value="queue" className="focus:outline-none">
          <QueuePanel userId={userId} />
        </Tabs.Content>
        <Tabs.Content value="appeals" className="focus:outline-none">
          <AppealsPanel />
        </Tabs.Content>
        {role === 'admin' ? (
          <>
            <Tabs.Content value="audit" className="focus:outline-none">
              <AuditLogPanel />
            </Tabs.Content>
            <Tabs.Content value="transparency" className="focus:outline-none">
              <TransparencyPanel />
            </Tabs.Content>
          </>
        ) : null}
      </Tabs.Root>
    </div>
  );
}
