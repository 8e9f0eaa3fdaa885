import type { Role } from '@shared/schemas/moderation';
import { ChevronRight, ShieldCheck } from 'lucide-react';
import { Link } from 'react-router-dom';

/** On the profile of a moderator or an admin only: the way to the moderation screens. */
export function ModerationLink({ role }: { role: Role }) {
  return (
    <Link
      to="/moderation"
      className="flex min-h-16 items-center gap-4 rounded-3xl border border-white/10 bg-white/[0.03] p-4 transition hover:bg-white/[0.06]"
    >
      <span className="grid size-10 shrink-0 place-items-center rounded-2xl bg-intent/15 text-intent-soft">
        <ShieldCheck aria-hidden="true" className="size-5" />
      </span>
      <span className="min-w-0 flex-1">
        <span className="block font-semibold text-white">Moderation</span>
        <span className="block text-xs text-zinc-400">
          {role === 'admin' ? 'Reports, appeals, audit log and transparency' : 'Reports and appeals'}
        </span>
      </span>
      <ChevronRight aria-hidden="true" className="size-5 text-zinc-400" />
    </Link>
  );
}
