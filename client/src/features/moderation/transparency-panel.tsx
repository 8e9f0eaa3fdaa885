import type { ReportReason } from '@shared/schemas/matches';
import type { TransparencyReport } from '@shared/schemas/moderation';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Download } from 'lucide-react';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';
import { EVENT_LABELS } from './moderation-labels';
import { transparencyQuery } from './moderation-queries';

const reasonLabel = (key: string) => REPORT_REASON_LABELS[key as ReportReason] ?? key;
const kindLabel = (key: string) => EVENT_LABELS[key as keyof typeof EVENT_LABELS] ?? key;

function Card({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section
      aria-labelledby={id}
      className="grid content-start gap-3 rounded-3xl border border-white/10 bg-white/[0.03] p-4"
    >
      <h3 id={id} className="text-sm font-semibold uppercase tracking-wide text-zinc-400">
        {title}
      </h3>
      {children}
    </section>
  );
}

function Counts({
  counts,
  label,
  sorted = true,
}: {
  counts: Record<string, number>;
  label: (key: string) => string;
  /** Largest first; else in the given order. */
  sorted?: boolean;
}) {
  const entries = sorted ? Object.entries(counts).sort((a, b) => b[1] - a[1]) : Object.entries(counts);
  if (entries.length === 0) return <p className="text-sm text-zinc-400">None in this period.</p>;
  return (
    <dl className="grid gap-1.5">
      {entries.map(([key, count]) => (
        <div key={key} className="flex items-baseline justify-between gap-3 text-sm">
          <dt className="text-zinc-300">{label(key)}</dt>
          <dd className="font-semibold tabular-nums text-white">{count}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Saves the report as the same JSON the server answered (for publishing a transparency report). */
function download(report: TransparencyReport): void {
  const blob = new Blob([`${JSON.stringify(report, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `podmatch-transparency-${report.from}-to-${report.to}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * The counts of a transparency report for a period (docs/moderation.md): reports by reason, actions
 * by type, the median time to action, appeals and their outcomes, automatic hides.
 */
export function TransparencyPanel() {
  const id = useId();
  const [draft, setDraft] = useState({ from: '', to: '' });
  const [range, setRange] = useState<{ from?: string; to?: string }>({});
  // The counts on screen stay while another period loads.
  const query = useQuery({ ...transparencyQuery(range), placeholderData: keepPreviousData });
  const report = query.data;

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setRange({ from: draft.from || undefined, to: draft.to || undefined });
  };

  return (
    <div className="grid gap-4">
      <form onSubmit={apply} className="flex flex-wrap items-end gap-3">
        <label htmlFor={`${id}-from`} className="grid gap-1 text-xs text-zinc-400">
          From
          <Input
            id={`${id}-from`}
            type="date"
            value={draft.from}
            onChange={(event) => setDraft((d) => ({ ...d, from: event.target.value }))}
            className="w-44"
          />
        </label>
        <label htmlFor={`${id}-to`} className="grid gap-1 text-xs text-zinc-400">
          To
          <Input
            id={`${id}-to`}
            type="date"
            value={draft.to}
            onChange={(event) => setDraft((d) => ({ ...d, to: event.target.value }))}
            className="w-44"
          />
        </label>
        <Button type="submit" variant="outline">
          Show
        </Button>
        {report ? (
          <Button className="sm:ml-auto" onClick={() => download(report)}>
            <Download aria-hidden="true" className="size-4" />
            Download JSON
          </Button>
        ) : null}
      </form>
      {query.isPending ? (
        <div role="status" aria-label="Loading the counts" className="grid place-items-center py-10">
          <Spinner className="size-6 text-zinc-300" />
        </div>
      ) : query.isError ? (
        <p role="alert" className="text-sm text-red-300">
          {errorMessage(query.error, 'The counts could not be loaded. Please try again.')}
        </p>
      ) : report ? (
        <>
          <p className="text-sm text-zinc-300" data-testid="transparency-period">
            From {report.from} to {report.to}
          </p>
          <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
            <Card title="Reports by reason">
              <Counts counts={report.reportsByReason} label={reasonLabel} />
            </Card>
            <Card title="Actions by type">
              <Counts counts={report.actionsByKind} label={kindLabel} />
            </Card>
            <Card title="Time to action">
              <p className="text-3xl font-bold tabular-nums text-white">
                {report.medianHoursToAction === null ? '–' : `${report.medianHoursToAction.toFixed(1)} h`}
              </p>
              <p className="text-xs text-zinc-400">
                {report.medianHoursToAction === null
                  ? 'No reports were acted on in this period.'
                  : "Median time from a person's first open report to the action that closed it."}
              </p>
            </Card>
            <Card title="Appeals">
              <Counts
                counts={{
                  Received: report.appeals.received,
                  Upheld: report.appeals.upheld,
                  Reversed: report.appeals.reversed,
                  Open: report.appeals.open,
                }}
                label={(key) => key}
                sorted={false}
              />
            </Card>
            <Card title="Automatic hides">
              <p className="text-3xl font-bold tabular-nums text-white">{report.automaticHides}</p>
              <p className="text-xs text-zinc-400">People hidden from new feeds after several distinct reporters.</p>
            </Card>
          </div>
        </>
      ) : null}
    </div>
  );
}
