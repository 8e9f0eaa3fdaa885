import { INTENT_INFO, INTENTS, LIMITS } from '@shared/constants';
import type { SelfUser, UpdateUserBody } from '@shared/schemas/user';
import { UserRoundPen } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { DisplayNameField } from '@/components/display-name-field';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { toast } from '@/lib/toast';
import { useUpdateCurrentUser } from '@/lib/user-queries';
import { ProfileCard } from './profile-card';

type TaglineField = (typeof INTENT_INFO)[keyof typeof INTENT_INFO]['taglineField'];

interface Draft {
  displayName: string;
  taglines: Record<TaglineField, string>;
  minMatchPercentage: number;
}

function draftOf(user: SelfUser): Draft {
  return {
    displayName: user.displayName,
    taglines: {
      romanticTagline: user.romanticTagline ?? '',
      platonicTagline: user.platonicTagline ?? '',
      professionalTagline: user.professionalTagline ?? '',
    },
    minMatchPercentage: user.matchPreferences.minMatchPercentage,
  };
}

type Problems = Partial<Record<'displayName' | TaglineField | 'minMatchPercentage', string>>;

/** The inline checks, the same limits the server applies (LIMITS in shared/src/constants.ts). */
export function checkDraft(draft: Draft): Problems {
  const problems: Problems = {};
  const name = draft.displayName.trim();
  if (!name) problems.displayName = 'Display name is required';
  else if (name.length > LIMITS.displayNameMaxLength) {
    problems.displayName = `Display name can be at most ${LIMITS.displayNameMaxLength} characters`;
  }
  for (const intent of INTENTS) {
    const field = INTENT_INFO[intent].taglineField;
    if (draft.taglines[field].trim().length > LIMITS.taglineMaxLength) {
      problems[field] = `A tagline can be at most ${LIMITS.taglineMaxLength} characters`;
    }
  }
  const pct = draft.minMatchPercentage;
  if (!Number.isInteger(pct) || pct < 0 || pct > 100)
    problems.minMatchPercentage = 'Choose a whole number from 0 to 100';
  return problems;
}

function bodyOf(draft: Draft): UpdateUserBody {
  const tagline = (value: string) => value.trim() || null;
  return {
    displayName: draft.displayName.trim(),
    romanticTagline: tagline(draft.taglines.romanticTagline),
    platonicTagline: tagline(draft.taglines.platonicTagline),
    professionalTagline: tagline(draft.taglines.professionalTagline),
    matchPreferences: { minMatchPercentage: draft.minMatchPercentage },
  };
}

function FieldProblem({ id, text }: { id: string; text?: string }) {
  return text ? (
    <p id={id} className="text-sm text-red-300">
      {text}
    </p>
  ) : null;
}

/** Display name, the three taglines and the minimum match %, saved together with one PUT. */
export function ProfileInfoCard({ user }: { user: SelfUser }) {
  const [draft, setDraft] = useState(() => draftOf(user));
  const [showProblems, setShowProblems] = useState(false);
  const update = useUpdateCurrentUser();
  const id = useId();
  const problems = checkDraft(draft);
  const visible = showProblems ? problems : {};

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (Object.keys(problems).length > 0) return;
    update.mutate(bodyOf(draft), {
      onSuccess: (saved) => {
        setDraft(draftOf(saved));
        setShowProblems(false);
        toast({ title: 'Profile Updated', description: 'Your profile information has been saved.' });
      },
      onError: (error) =>
        toast({
          variant: 'destructive',
          title: 'Failed to update profile',
          description: errorMessage(error, 'Please try again.'),
        }),
    });
  };

  const setTagline = (field: TaglineField, value: string) =>
    setDraft((d) => ({ ...d, taglines: { ...d.taglines, [field]: value } }));
  const setPercentage = (value: string) =>
    setDraft((d) => ({ ...d, minMatchPercentage: value === '' ? Number.NaN : Number(value) }));

  return (
    <ProfileCard icon={UserRoundPen} title="Profile information" testId="profile-info-card">
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <DisplayNameField
          id={`${id}-name`}
          value={draft.displayName}
          problem={visible.displayName}
          onChange={(displayName) => setDraft((d) => ({ ...d, displayName }))}
        />
        {INTENTS.map((intent) => {
          const info = INTENT_INFO[intent];
          const field = info.taglineField;
          const fieldId = `${id}-${field}`;
          const value = draft.taglines[field];
          return (
            <div key={intent} className="grid gap-1.5">
              <div className="flex items-baseline justify-between gap-2">
                <label htmlFor={fieldId} className="text-sm font-medium text-zinc-200">
                  {info.label} tagline
                </label>
                <span aria-hidden="true" className="text-xs text-zinc-300">
                  {value.length}/{LIMITS.taglineMaxLength}
                </span>
              </div>
              <textarea
                id={fieldId}
                value={value}
                rows={2}
                maxLength={LIMITS.taglineMaxLength}
                placeholder={info.defaultTagline}
                aria-invalid={visible[field] ? true : undefined}
                aria-describedby={visible[field] ? `${fieldId}-problem` : undefined}
                onChange={(event) => setTagline(field, event.target.value)}
                className={cn(
                  'min-h-11 w-full resize-none rounded-2xl border border-white/10 bg-white/[0.04] px-4 py-2.5 text-sm text-zinc-100',
                  'placeholder:text-zinc-400 focus:border-intent-soft/70 focus:outline-none aria-invalid:border-red-500/70',
                )}
              />
              <FieldProblem id={`${fieldId}-problem`} text={visible[field]} />
            </div>
          );
        })}
        <div className="grid gap-1.5">
          <label htmlFor={`${id}-pct`} className="text-sm font-medium text-zinc-200">
            Minimum match %
          </label>
          <p id={`${id}-pct-help`} className="text-xs text-zinc-300">
            Your feed only shows people who match you at least this much.
          </p>
          <div className="flex items-center gap-3">
            <input
              type="range"
              min={0}
              max={100}
              step={1}
              aria-label="Minimum match % slider"
              value={Number.isNaN(draft.minMatchPercentage) ? 0 : draft.minMatchPercentage}
              onChange={(event) => setPercentage(event.target.value)}
              className="h-11 min-w-0 flex-1 accent-intent"
            />
            <div className="w-20 shrink-0">
              <Input
                id={`${id}-pct`}
                type="number"
                inputMode="numeric"
                min={0}
                max={100}
                step={1}
                value={Number.isNaN(draft.minMatchPercentage) ? '' : draft.minMatchPercentage}
                aria-invalid={visible.minMatchPercentage ? true : undefined}
                aria-describedby={visible.minMatchPercentage ? `${id}-pct-help ${id}-pct-problem` : `${id}-pct-help`}
                onChange={(event) => setPercentage(event.target.value)}
                className="px-3 text-center"
              />
            </div>
          </div>
          <FieldProblem id={`${id}-pct-problem`} text={visible.minMatchPercentage} />
        </div>
        <Button type="submit" className="w-full" disabled={update.isPending}>
          {update.isPending ? <Spinner /> : null}
          Save
        </Button>
      </form>
    </ProfileCard>
  );
}
