import { REPORT_REASONS, type ReportReason } from '@shared/schemas/matches';
import {
  COMMUNITY_RULE_KEYS,
  COMMUNITY_RULES,
  type CommunityRule,
  MODERATION_ACTIONS,
  MODERATION_TEXTS,
  type ModerationActionBody,
  type ModerationActionKind,
} from '@shared/schemas/moderation';
import { type FormEvent, type Ref, useId, useImperativeHandle, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { REPORT_REASON_LABELS } from '@/lib/report-reasons';
import { ACTION_HINTS, ACTION_LABELS, RULE_LABELS } from './moderation-labels';

/** The rule a report reason usually breaks: the form's first guess, which the moderator can change. */
const RULE_FOR_REASON: Record<ReportReason, CommunityRule> = {
  harassment: 'respect',
  inappropriate: 'consent',
  fake_profile: 'authenticity',
  spam: 'spam',
  other: 'safety',
};

export const DEFAULT_SUSPEND_DAYS = 7;

export interface ActionFormHandle {
  /** Picks an action (a shortcut or the suggestion) and puts the cursor in the explanation. */
  choose: (kind: ModerationActionKind) => void;
}

interface ActionFormProps {
  ref?: Ref<ActionFormHandle>;
  name: string;
  /** The most reported reason, the form's first reason. */
  defaultReason: ReportReason;
  /** Only the moderator who claimed the person may act. */
  canAct: boolean;
  pending: boolean;
  problem: string | null;
  onSubmit: (body: ModerationActionBody) => Promise<boolean>;
}

const fieldClasses =
  'w-full rounded-2xl border border-white/10 bg-white/[0.04] px-4 text-sm text-zinc-100 transition focus:border-intent-soft/70 focus:bg-white/[0.06] focus:outline-none';

/**
 * What the moderator does about the person: the action, the reason category, the community rule it
 * cites and the explanation the person reads in their statement of reasons (days for a suspension).
 */
export function ActionForm({ ref, name, defaultReason, canAct, pending, problem, onSubmit }: ActionFormProps) {
  const id = useId();
  const [kind, setKind] = useState<ModerationActionKind | null>(null);
  const [reason, setReason] = useState<ReportReason>(defaultReason);
  const [rule, setRule] = useState<CommunityRule>(RULE_FOR_REASON[defaultReason]);
  const [explanation, setExplanation] = useState('');
  const [days, setDays] = useState(String(DEFAULT_SUSPEND_DAYS));
  const explanationRef = useRef<HTMLTextAreaElement>(null);

  useImperativeHandle(ref, () => ({
    choose: (next) => {
      setKind(next);
      explanationRef.current?.focus();
    },
  }));

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!kind) return;
    const body: ModerationActionBody = { kind, reason, rule, explanation };
    if (kind === 'suspend') body.days = Number(days);
    if (await onSubmit(body)) {
      setKind(null);
      setExplanation('');
      setDays(String(DEFAULT_SUSPEND_DAYS));
    }
  };

  return (
    <form
      aria-labelledby={`${id}-title`}
      onSubmit={submit}
      noValidate
      className="grid gap-4 rounded-3xl border border-white/10 bg-white/[0.03] p-4 sm:p-5"
    >
      <h3 id={`${id}-title`} className="text-base font-semibold text-white">
        Take action on {name}
      </h3>
      <fieldset className="grid gap-2">
        <legend className="mb-2 text-sm text-zinc-300">Action</legend>
        <div className="flex flex-wrap gap-2">
          {MODERATION_ACTIONS.map((value) => (
            <label
              key={value}
              className={cn(
                'flex min-h-11 cursor-pointer items-center rounded-full border px-4 text-sm font-medium transition',
                'focus-within:outline-2 focus-within:outline-offset-2 focus-within:outline-intent-soft',
                kind === value
                  ? value === 'ban' || value === 'suspend'
                    ? 'border-red-400/60 bg-red-500/20 text-red-100'
                    : 'border-intent-soft/70 bg-intent/25 text-white'
                  : 'border-white/15 text-zinc-300 hover:bg-white/[0.06]',
              )}
            >
              <input
                type="radio"
                name={`${id}-kind`}
                value={value}
                checked={kind === value}
                onChange={() => setKind(value)}
                className="sr-only"
              />
              {ACTION_LABELS[value]}
            </label>
          ))}
        </div>
        {kind ? <p className="text-xs text-zinc-400">{ACTION_HINTS[kind]}</p> : null}
      </fieldset>

      {kind === 'suspend' ? (
        <label htmlFor={`${id}-days`} className="grid gap-1 text-sm text-zinc-300 sm:max-w-40">
          Days
          <Input
            id={`${id}-days`}
            type="number"
            inputMode="numeric"
            min={1}
            max={365}
            value={days}
            onChange={(event) => setDays(event.target.value)}
          />
        </label>
      ) : null}

      <div className="grid gap-4 sm:grid-cols-2">
        <label className="grid gap-1 text-sm text-zinc-300">
          Reason
          <select
            value={reason}
            onChange={(event) => setReason(event.target.value as ReportReason)}
            className={cn(fieldClasses, 'h-11')}
          >
            {REPORT_REASONS.map((value) => (
              <option key={value} value={value}>
                {REPORT_REASON_LABELS[value]}
              </option>
            ))}
          </select>
        </label>
        <label className="grid gap-1 text-sm text-zinc-300">
          Community rule
          <select
            value={rule}
            onChange={(event) => setRule(event.target.value as CommunityRule)}
            aria-describedby={`${id}-rule`}
            className={cn(fieldClasses, 'h-11')}
          >
            {COMMUNITY_RULE_KEYS.map((value) => (
              <option key={value} value={value}>
                {RULE_LABELS[value]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p id={`${id}-rule`} className="-mt-2 rounded-xl bg-white/[0.04] px-3 py-2 text-xs leading-relaxed text-zinc-300">
        {COMMUNITY_RULES[rule]}
      </p>

      <div className="grid gap-1">
        <label htmlFor={`${id}-explanation`} className="text-sm text-zinc-300">
          Explanation
        </label>
        <textarea
          id={`${id}-explanation`}
          ref={explanationRef}
          value={explanation}
          rows={4}
          maxLength={1000}
          onChange={(event) => setExplanation(event.target.value)}
          aria-describedby={`${id}-explanation-hint`}
          placeholder="What they did, in words they will understand."
          className={cn(fieldClasses, 'min-h-28 py-3 placeholder:text-zinc-500')}
        />
        <p id={`${id}-explanation-hint`} className="text-xs text-zinc-400">
          {name} reads this in the statement of reasons, with the rule and how to appeal.
        </p>
      </div>

      <p role="alert" className="text-sm text-red-300 empty:hidden">
        {problem}
      </p>
      {canAct ? null : <p className="text-sm text-amber-200">{MODERATION_TEXTS.notClaimedByYou}</p>}
      <Button type="submit" size="lg" disabled={!canAct || !kind || pending} aria-busy={pending}>
        {pending ? <Spinner /> : null}
        Apply
      </Button>
    </form>
  );
}
