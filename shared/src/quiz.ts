import { z } from 'zod';

/**
 * The listening-habits quiz on the own profile: a few questions, each answered by one option. What
 * it adds to a profile is how someone listens, which the shows alone do not say.
 */
export const LISTENING_QUIZ = [
  {
    id: 'when',
    question: 'When do you listen most?',
    options: [
      { id: 'commute', label: 'On my commute' },
      { id: 'workout', label: 'Working out' },
      { id: 'chores', label: 'Doing chores' },
      { id: 'bedtime', label: 'Falling asleep' },
    ],
  },
  {
    id: 'speed',
    question: 'What speed do you listen at?',
    options: [
      { id: '1x', label: 'Always 1x' },
      { id: '1.5x', label: 'Around 1.5x' },
      { id: '2x', label: '2x or faster' },
    ],
  },
  {
    id: 'backlog',
    question: 'How do you handle a new episode?',
    options: [
      { id: 'same-day', label: 'Same day, every time' },
      { id: 'queue', label: 'It joins the queue' },
      { id: 'pick', label: 'I pick what sounds good' },
    ],
  },
  {
    id: 'length',
    question: 'Your favourite episode length?',
    options: [
      { id: 'short', label: 'Under 30 minutes' },
      { id: 'hour', label: 'About an hour' },
      { id: 'epic', label: 'The longer the better' },
    ],
  },
  {
    id: 'share',
    question: 'Do you share episodes with friends?',
    options: [
      { id: 'always', label: 'All the time' },
      { id: 'sometimes', label: 'The really good ones' },
      { id: 'never', label: 'I keep them to myself' },
    ],
  },
] as const;

export type QuizQuestionId = (typeof LISTENING_QUIZ)[number]['id'];

/** Answers by question id; only known questions and each question's own options are accepted. */
export const QuizAnswersSchema = z.record(z.string(), z.string()).superRefine((answers, ctx) => {
  for (const [questionId, optionId] of Object.entries(answers)) {
    const question = LISTENING_QUIZ.find((q) => q.id === questionId);
    if (!question) ctx.addIssue({ code: 'custom', path: [questionId], message: 'This is not a quiz question.' });
    else if (!question.options.some((o) => o.id === optionId)) {
      ctx.addIssue({ code: 'custom', path: [questionId], message: 'This is not one of the answers.' });
    }
  }
});
export type QuizAnswers = z.infer<typeof QuizAnswersSchema>;

/** How much of the quiz is answered, 0-100. */
export function quizCompletion(answers: QuizAnswers): number {
  const answered = LISTENING_QUIZ.filter((q) => answers[q.id] !== undefined).length;
  return Math.round((answered / LISTENING_QUIZ.length) * 100);
}

/** The setup wizard's steps (SPEC section 2): 0 intent, 1 profile info, 2 photo, 3 streaming, 4 video. */
export const SETUP_STEPS = 5;
