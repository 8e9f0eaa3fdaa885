import { LISTENING_QUIZ, type QuizAnswers, quizCompletion } from '@shared/quiz';
import type { SelfUser } from '@shared/schemas/user';
import { Headphones } from 'lucide-react';
import { useRef, useState } from 'react';
import { ProgressBar } from '@/components/ui/progress-bar';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { toast } from '@/lib/toast';
import { useUpdateCurrentUser } from '@/lib/user-queries';
import { ProfileCard } from './profile-card';

/**
 * The listening-habits quiz (shared/src/quiz.ts): every question as a radio group; each answer is
 * saved at once (PUT quizAnswers, the whole set) and the completion % follows the saved answers.
 */
export function QuizCard({ user }: { user: SelfUser }) {
  const update = useUpdateCurrentUser();
  // Answers chosen but not yet confirmed by the server, shown right away.
  const [pending, setPending] = useState<QuizAnswers | null>(null);
  const answers = pending ?? user.quizAnswers;
  const completion = quizCompletion(answers);

  // One save at a time, each the whole set: two in flight could commit out of order on the server
  // and the older set would win. Answers chosen meanwhile go out together once the save ends.
  const saving = useRef(false);
  const queued = useRef<QuizAnswers | null>(null);
  const save = (next: QuizAnswers) => {
    if (saving.current) {
      queued.current = next;
      return;
    }
    saving.current = true;
    update.mutate(
      { quizAnswers: next },
      {
        onSettled: () => {
          saving.current = false;
          const later = queued.current;
          queued.current = null;
          if (later) save(later);
          else setPending((current) => (current === next ? null : current));
        },
        onError: (error) =>
          toast({
            variant: 'destructive',
            title: 'Failed to update profile',
            description: errorMessage(error, 'Your quiz answer was not saved. Please try again.'),
          }),
      },
    );
  };

  const answer = (questionId: string, optionId: string) => {
    const next = { ...answers, [questionId]: optionId };
    setPending(next);
    save(next);
  };

  return (
    <ProfileCard
      icon={Headphones}
      title="Listening quiz"
      testId="quiz-card"
      aside={
        <span data-testid="quiz-completion" className="shrink-0 text-sm font-semibold text-intent-soft">
          {completion}% complete
        </span>
      }
    >
      <ProgressBar value={completion} label="Quiz completion" className="mb-4" />
      <p className="mb-4 text-sm text-zinc-300">How you listen tells people more than the shows alone.</p>
      <div className="grid gap-5">
        {LISTENING_QUIZ.map((question) => (
          <fieldset key={question.id} className="grid min-w-0 gap-2">
            <legend className="mb-2 text-sm font-medium text-zinc-100">{question.question}</legend>
            {question.options.map((option) => {
              const checked = answers[question.id] === option.id;
              return (
                <label
                  key={option.id}
                  className={cn(
                    'flex min-h-11 cursor-pointer items-center gap-3 rounded-xl border px-3 py-2 text-sm text-zinc-100 transition-colors',
                    checked ? 'border-intent-soft/70 bg-intent/15' : 'border-white/10 hover:bg-white/[0.05]',
                  )}
                >
                  <input
                    type="radio"
                    name={`quiz-${question.id}`}
                    value={option.id}
                    checked={checked}
                    onChange={() => answer(question.id, option.id)}
                    className="size-4 shrink-0 accent-intent"
                  />
                  <span className="min-w-0 break-words">{option.label}</span>
                </label>
              );
            })}
          </fieldset>
        ))}
      </div>
    </ProfileCard>
  );
}
