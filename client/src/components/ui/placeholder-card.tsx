import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

interface PlaceholderCardProps {
  icon: LucideIcon;
  title: string;
  children: ReactNode;
}

/** A friendly "coming in a later release" panel for screens that are not built yet. */
export function PlaceholderCard({ icon: Icon, title, children }: PlaceholderCardProps) {
  return (
    <section className="rounded-3xl border border-white/10 bg-white/[0.03] p-6 text-center shadow-xl shadow-black/20">
      <div className="mx-auto mb-4 grid size-14 place-items-center rounded-2xl bg-intent/15 text-intent-soft">
        <Icon aria-hidden="true" className="size-7" />
      </div>
      <h2 className="text-lg font-semibold text-white">{title}</h2>
      <div className="mt-2 text-sm leading-relaxed text-zinc-400">{children}</div>
    </section>
  );
}
