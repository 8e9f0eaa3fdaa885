import { INTENT_INFO, INTENTS, LIMITS } from '@shared/constants';
import { SETUP_STEPS } from '@shared/quiz';
import type { SelfUser, UpdateUserBody } from '@shared/schemas/user';
import { type FormEvent, type KeyboardEvent, type ReactNode, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { DisplayNameField } from '@/components/display-name-field';
import { PersonPicture } from '@/components/person-picture';
import { PictureUpload } from '@/components/picture-upload';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { Spinner } from '@/components/ui/spinner';
import { AiVideoCard } from '@/features/videos';
import { errorMessage } from '@/lib/api-client';
import { toast } from '@/lib/toast';
import { useSaveIntent, useUpdateCurrentUser } from '@/lib/user-queries';
import { SetupProgress, STEP_TITLES } from './setup-steps';

type TaglineField = (typeof INTENT_INFO)[keyof typeof INTENT_INFO]['taglineField'];

interface ProfileDraft {
  displayName: string;
  taglines: Record<TaglineField, string>;
}

const LAST_STEP = SETUP_STEPS - 1;

function initialDraft(user: SelfUser): ProfileDraft {
  return {
    displayName: user.displayName,
    taglines: {
      romanticTagline: user.romanticTagline ?? '',
      platonicTagline: user.platonicTagline ?? '',
      professionalTagline: user.professionalTagline ?? '',
    },
  };
}

/** The draft as PUT fields, or nothing while it has no display name (the server would refuse it). */
function profileFields(draft: ProfileDraft): UpdateUserBody {
  const displayName = draft.displayName.trim();
  if (!displayName) return {};
  const tagline = (field: TaglineField) => draft.taglines[field].trim() || null;
  return {
    displayName,
    romanticTagline: tagline('romanticTagline'),
    platonicTagline: tagline('platonicTagline'),
    professionalTagline: tagline('professionalTagline'),
  };
}

/**
 * Whether `picture` is one the person uploaded: a new account gets a generated portrait (stored
 * under `avatars/`, docs/media.md) within seconds, which does not count as their profile photo.
 */
function isOwnPicture(picture: string | null): boolean {
  return Boolean(picture) && !/(^|\/)avatars\/[^/]+$/.test(picture ?? '');
}

/** Where a person opens the wizard: the saved step, or the first one once setup is complete (editing). */
function startStep(user: SelfUser): number {
  if (user.setupComplete) return 0;
  return Math.min(Math.max(user.setupStep, 0), LAST_STEP);
}

interface SetupWizardProps {
  user: SelfUser;
  /** Step 4's ways to list podcasts (Spotify, OPML import, search), composed by the route. */
  streaming: ReactNode;
}

/**
 * The five-step setup wizard (/setup, SPEC section 2). Every step change is saved as setupStep (with
 * the profile fields once there is a display name), so leaving half-way resumes at that step.
 * 'Complete Setup' and 'Skip this step' save setupComplete and go to the feed.
 */
export function SetupWizard({ user, streaming }: SetupWizardProps) {
  const [step, setStep] = useState(() => startStep(user));
  const [draft, setDraft] = useState(() => initialDraft(user));
  const { intent, save: saveIntent, isSaving: intentSaving } = useSaveIntent();
  const update = useUpdateCurrentUser();
  const complete = useUpdateCurrentUser();
  const navigate = useNavigate();
  const moved = useRef(false);
  const id = useId();
  // Focus follows the step (not on the first render): the heading is a new node per step (keyed), so a
  // keyboard or screen reader user lands on the new step's title.
  const focusHeading = (node: HTMLHeadingElement | null) => {
    if (node && moved.current) node.focus();
  };

  const hasName = draft.displayName.trim().length > 0;
  const hasPicture = isOwnPicture(user.profilePicture);
  const canLeave = step === 1 ? hasName : step === 2 ? hasPicture : true;

  const goTo = (next: number) => {
    if (next === step || next < 0 || next > LAST_STEP) return;
    moved.current = true;
    setStep(next);
    update.mutate(
      { ...profileFields(draft), setupStep: next },
      {
        onError: (error) =>
          toast({
            variant: 'destructive',
            title: 'Could not save your progress',
            description: errorMessage(error, 'Please try again.'),
          }),
      },
    );
  };

  const finish = () => {
    complete.mutate(
      { ...profileFields(draft), setupStep: LAST_STEP, setupComplete: true },
      {
        onSuccess: () => {
          toast({ title: 'Setup Complete', description: 'Your profile has been set up successfully!' });
          navigate('/', { replace: true });
        },
        onError: (error) =>
          toast({
            variant: 'destructive',
            title: 'Error completing setup',
            description: errorMessage(error, 'Please try again.'),
          }),
      },
    );
  };

  const next = () => {
    if (step === LAST_STEP) finish();
    else if (canLeave) goTo(step + 1);
  };
  // Enter in the profile fields goes on, as in a form. The wizard itself is no <form>: steps hold
  // forms of their own (Bluesky's link, search), and a form inside a form submits the outer one.
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    next();
  };
  // A form without a submit button of its own (the footer's Next is outside it) needs Enter handled.
  const submitOnEnter = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== 'Enter' || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    next();
  };

  const setTagline = (field: TaglineField, value: string) =>
    setDraft((d) => ({ ...d, taglines: { ...d.taglines, [field]: value } }));

  return (
    <main className="mx-auto grid w-full max-w-md gap-6 px-4 pt-8 pb-10" data-testid="setup-wizard">
      <header className="grid gap-1 text-center">
        <h1 className="text-2xl font-bold tracking-tight text-white">Set up your profile</h1>
        <p className="text-sm text-zinc-300">A few steps and people who listen like you can find you.</p>
      </header>

      <SetupProgress step={step} onSelect={goTo} />

      <section
        aria-labelledby={`${id}-title`}
        className="grid min-w-0 gap-5 rounded-3xl border border-white/10 bg-white/[0.03] p-5 shadow-xl shadow-black/20"
      >
        <h2 key={step} id={`${id}-title`} ref={focusHeading} tabIndex={-1} className="text-xl font-semibold text-white">
          {STEP_TITLES[step]}
        </h2>

        {step === 0 ? (
          <div className="grid gap-3">
            <p className="text-sm text-zinc-300">
              What are you here for? Your feed, matches and tagline follow this choice; you can change it any time.
            </p>
            <IntentSwitcher value={intent} onChange={saveIntent} disabled={intentSaving} />
          </div>
        ) : null}

        {step === 1 ? (
          <form noValidate onSubmit={onSubmit} onKeyDown={submitOnEnter} className="grid gap-4">
            <DisplayNameField
              id={`${id}-name`}
              value={draft.displayName}
              problem={hasName ? undefined : 'Display name is required'}
              onChange={(displayName) => setDraft((d) => ({ ...d, displayName }))}
            />
            {INTENTS.map((each) => {
              const { taglineField, label, defaultTagline } = INTENT_INFO[each];
              return (
                <div key={each} className="grid gap-1.5">
                  <label htmlFor={`${id}-${each}`} className="text-sm font-medium text-zinc-200">
                    {label} tagline
                  </label>
                  <Input
                    id={`${id}-${each}`}
                    value={draft.taglines[taglineField]}
                    maxLength={LIMITS.taglineMaxLength}
                    placeholder={defaultTagline}
                    onChange={(event) => setTagline(taglineField, event.target.value)}
                  />
                </div>
              );
            })}
          </form>
        ) : null}

        {step === 2 ? (
          <div className="grid gap-3">
            <p className="text-sm text-zinc-300">
              {hasPicture
                ? 'Looking good. You can choose another photo or go on.'
                : 'Upload a photo of yourself so people know who they are matching with.'}
            </p>
            <PictureUpload />
          </div>
        ) : null}

        {step === 3 ? (
          <div className="grid gap-4">
            <p className="rounded-2xl border border-intent-soft/40 bg-white/[0.04] p-3 text-sm text-zinc-200">
              Matching is based on the podcasts you share with other people: connect Spotify, import an OPML file from
              your podcast app, or search and add shows. You can do this later from your profile.
            </p>
            {streaming}
          </div>
        ) : null}

        {step === 4 ? <SummaryStep user={user} draft={draft} intent={intent} /> : null}

        {/* The main action on a row of its own, then Back and the skip: nothing wraps at 320 px. */}
        <div className="grid gap-2 pt-1">
          <Button
            onClick={next}
            disabled={step === LAST_STEP ? complete.isPending : !canLeave}
            className="w-full"
            data-testid="setup-next"
          >
            {step === LAST_STEP && complete.isPending ? <Spinner /> : null}
            {step === LAST_STEP ? 'Complete Setup' : 'Next'}
          </Button>
          <div className="flex items-center justify-between gap-2">
            {step > 0 ? (
              <Button variant="ghost" onClick={() => goTo(step - 1)}>
                Back
              </Button>
            ) : (
              <span />
            )}
            {step === 3 ? (
              <Button variant="ghost" onClick={() => goTo(step + 1)}>
                Skip for now
              </Button>
            ) : null}
            {step === LAST_STEP ? (
              <Button variant="ghost" onClick={finish} disabled={complete.isPending}>
                Skip this step
              </Button>
            ) : null}
          </div>
        </div>
      </section>
    </main>
  );
}

/** Step 5: what others will see, and the AI video card. */
function SummaryStep({ user, draft, intent }: { user: SelfUser; draft: ProfileDraft; intent: SelfUser['intent'] }) {
  const info = INTENT_INFO[intent];
  const tagline = draft.taglines[info.taglineField].trim() || info.defaultTagline;
  return (
    <div className="grid gap-4">
      <section aria-label="Profile summary" className="flex min-w-0 items-center gap-4">
        <PersonPicture
          name={draft.displayName}
          picture={user.profilePicture}
          className="size-16 shrink-0 rounded-full border border-white/10 object-cover"
        />
        <div className="min-w-0">
          <p className="truncate text-lg font-semibold text-white" data-testid="setup-summary-name">
            {draft.displayName.trim()}
          </p>
          <p className="text-sm break-words text-zinc-300">{tagline}</p>
          <p className="text-sm text-zinc-300">Looking for: {info.longLabel}</p>
        </div>
      </section>
      <AiVideoCard
        userId={user.id}
        intent={intent}
        hasPhoto={isOwnPicture(user.profilePicture)}
        intentTagline={draft.taglines[info.taglineField]}
        genericTagline={user.tagline}
      />
    </div>
  );
}
