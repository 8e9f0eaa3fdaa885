import { ShieldAlert } from 'lucide-react';
import { useId } from 'react';
import { AppealForm, noticeHeadline, StatementOfReasons } from '@/components/statement-of-reasons';
import { Button } from '@/components/ui/button';
import { forgetSuspension, type Suspension } from '@/lib/suspension';
import { preloadAuthRequests } from './use-dev-login';

export const SUSPENDED_APPEAL_SENT_TEXT =
  'Your appeal was sent. A different moderator will look at it. We will tell you the outcome here when you sign in after it was decided.';

/**
 * The login screen of a suspended or banned person (a refused sign-in, or a session a moderator just
 * ended): the statement of reasons and, while their appeal token lasts, an appeal without a session.
 */
export function SuspendedPanel({ suspension }: { suspension: Suspension }) {
  const titleId = useId();
  const { notice, appealToken, message, appealSent } = suspension;
  const appealOpen = notice.appeal?.state === 'open';
  return (
    <section
      aria-labelledby={titleId}
      data-testid="suspended-panel"
      className="mt-10 grid gap-5 rounded-3xl border border-red-400/25 bg-red-500/[0.06] p-5 text-left"
    >
      <div className="flex items-start gap-3">
        <ShieldAlert aria-hidden="true" className="mt-0.5 size-6 shrink-0 text-red-300" />
        <div className="grid gap-1">
          <h2 id={titleId} className="text-lg font-semibold leading-snug text-white">
            {noticeHeadline(notice)}
          </h2>
          {/* The headline of a suspension or a ban already says it (with the end date); the server's
              sentence adds to an appeal's outcome (the decision stands: until when). */}
          {message && notice.kind === 'appealOutcome' ? <p className="text-sm text-zinc-300">{message}</p> : null}
        </div>
      </div>
      <StatementOfReasons notice={notice} />
      {appealOpen && !appealSent ? (
        <p role="status" className="text-sm text-zinc-300">
          Your appeal is being reviewed. We will tell you the outcome here when you sign in after it was decided.
        </p>
      ) : appealToken && (notice.canAppeal || appealSent) ? (
        <AppealForm
          sent={appealSent}
          sentText={SUSPENDED_APPEAL_SENT_TEXT}
          onSubmit={async (text) => (await preloadAuthRequests()).requestSuspendedAppeal(appealToken, text)}
        />
      ) : null}
      <Button variant="ghost" className="w-full" onClick={() => forgetSuspension()}>
        Back to sign in
      </Button>
    </section>
  );
}
