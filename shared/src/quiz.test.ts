import { describe, expect, it } from 'vitest';
import { LISTENING_QUIZ, QuizAnswersSchema, quizCompletion } from './quiz';

describe('listening quiz', () => {
  it('accepts known answers and refuses unknown questions or answers', () => {
    expect(QuizAnswersSchema.safeParse({ when: 'commute', speed: '2x' }).success).toBe(true);
    expect(QuizAnswersSchema.safeParse({ when: 'never' }).success).toBe(false);
    expect(QuizAnswersSchema.safeParse({ favourite: 'commute' }).success).toBe(false);
    expect(QuizAnswersSchema.safeParse({ when: 3 }).success).toBe(false);
  });

  it('measures completion from the answers given', () => {
    expect(quizCompletion({})).toBe(0);
    expect(quizCompletion({ when: 'commute' })).toBe(Math.round(100 / LISTENING_QUIZ.length));
    const all = Object.fromEntries(LISTENING_QUIZ.map((q) => [q.id, q.options[0].id]));
    expect(quizCompletion(all)).toBe(100);
  });
});
