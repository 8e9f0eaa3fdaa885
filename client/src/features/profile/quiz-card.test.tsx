import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { startSession } from '@/lib/session';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { QuizCard } from './quiz-card';

describe('QuizCard', () => {
  it('saves one answer set at a time: answers given during a save go out together after it', async () => {
    startSession({ token: 'tok-5', userId: 5 });
    const user = makeSelfUser({ id: 5, quizAnswers: {} });
    const sent: Record<string, string>[] = [];
    let release: () => void = () => {};
    const inFlight: Promise<void>[] = [];
    mockFetch(async (_url, init) => {
      const body = JSON.parse(String(init.body)) as { quizAnswers: Record<string, string> };
      sent.push(body.quizAnswers);
      // The first save stays open until the test lets it go.
      if (sent.length === 1) {
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        inFlight.push(held);
        await held;
      }
      return jsonResponse({ ...user, quizAnswers: body.quizAnswers });
    });
    renderWithProviders(<QuizCard user={user} />);
    fireEvent.click(screen.getByText('On my commute'));
    fireEvent.click(screen.getByText('2x or faster'));
    fireEvent.click(screen.getByText('The really good ones'));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(screen.getByTestId('quiz-completion').textContent).toBe('60% complete');
    release();
    await waitFor(() => expect(sent).toHaveLength(2));
    // The second save carries every answer, so its commit cannot undo the first's.
    expect(Object.keys(sent[1] ?? {})).toHaveLength(3);
    expect(sent[0]).toEqual({ when: 'commute' });
  });
});
