import { SETUP_STEPS } from '@shared/quiz';
import { Check } from 'lucide-react';
import { ProgressBar } from '@/components/ui/progress-bar';
import { cn } from '@/lib/cn';

/** The wizard's steps in order (SPEC section 2, "Setup wizard"); the index is the saved setupStep. */
export const STEP_TITLES = [
  'Choose Intent',
  'Profile Info',
  'Profile Photo',
  'Streaming connection',
  'Video Intro',
] as const;

/** Each step's name under its circle (short, so five fit side by side at 320 px). */
export const STEP_LABELS = ['Intent', 'Profile', 'Photo', 'Podcasts', 'Video'] as const;

/** The progress bar (step/5) and the step indicators: earlier and current steps can be clicked, later ones not. */
export function SetupProgress({ step, onSelect }: { step: number; onSelect: (step: number) => void }) {
  const shown = step + 1;
  return (
    <nav aria-label="Setup steps" className="grid gap-3">
      {/* The step's title is the heading below; here only where it stands. */}
      <p className="text-sm text-zinc-300">
        Step {shown} of {SETUP_STEPS}
      </p>
      <ProgressBar value={(shown / SETUP_STEPS) * 100} label="Setup progress" />
      <ol className="flex justify-between gap-1">
        {STEP_TITLES.map((title, index) => {
          const done = index < step;
          const current = index === step;
          return (
            <li key={title} className="grid min-w-0 justify-items-center gap-1">
              <button
                type="button"
                aria-label={`Step ${index + 1}: ${title}`}
                aria-current={current ? 'step' : undefined}
                disabled={index > step}
                onClick={() => onSelect(index)}
                data-testid={`setup-step-${index + 1}`}
                className={cn(
                  'grid size-11 place-items-center rounded-full border text-sm font-semibold transition-colors',
                  'disabled:cursor-not-allowed',
                  current
                    ? 'border-intent bg-intent text-white'
                    : done
                      ? 'border-intent-soft/60 bg-white/[0.06] text-white hover:bg-white/[0.12]'
                      : 'border-white/15 bg-transparent text-zinc-300',
                )}
              >
                {done ? <Check aria-hidden="true" className="size-4" /> : index + 1}
              </button>
              <span
                aria-hidden="true"
                className={cn('text-xs', current ? 'font-semibold text-white' : 'text-zinc-300')}
              >
                {STEP_LABELS[index]}
              </span>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
