import type { Notice } from '@shared/schemas/moderation';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { APPEAL_SENT_TEXT, formatDateTime } from '@/components/statement-of-reasons';
import { makeNotice } from '@/test/moderation-fixtures';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { NoticeHost } from './notice-dialog';

const ME = 7;

/** GET notices answers `notices`; seen and appeals answer ok (or `appealAnswer`). */
function serve(notices: Notice[], appealAnswer?: () => Response) {
  return mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    if (url === `/api/users/${ME}/notices` && method === 'GET') return jsonResponse({ notices });
    if (/^\/api\/users\/7\/notices\/\d+\/seen$/.test(url) && method === 'POST') return jsonResponse({ ok: true });
    if (url === `/api/users/${ME}/appeals` && method === 'POST') {
      return appealAnswer?.() ?? jsonResponse({ ok: true }, { status: 201 });
    }
    return jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 });
  });
}

const posts = (fetchMock: ReturnType<typeof mockFetch>, url: string) =>
  fetchMock.mock.calls
    .filter(([u, init]) => u === url && init?.method === 'POST')
    .map(([, init]) => (init?.body ? JSON.parse(String(init.body)) : undefined));

describe('Statements of reasons (notices)', () => {
  it('shows the unseen notices oldest first: what, why, which rule, how long; "Got it" marks each seen', async () => {
    const hidden = makeNotice({
      id: 2,
      createdAt: '2026-11-27T11:00:00.000Z',
      action: { id: 502, kind: 'hide', endsAt: null, explanation: 'Your profile pictures were not of you.' },
    });
    const warning = makeNotice({
      id: 1,
      canAppeal: false,
      createdAt: '2026-11-27T10:00:00.000Z',
      action: { kind: 'warn', endsAt: null },
    });
    const fetchMock = serve([hidden, warning]);
    renderWithProviders(<NoticeHost userId={ME} />);

    const first = await screen.findByRole('dialog', { name: 'You received a warning' });
    within(first).getByText('You sent threatening messages to another person.');
    within(first).getByText('Treat people with respect: no harassment, threats or hate.');
    expect(within(first).queryByRole('button', { name: 'Appeal' })).toBeNull();
    fireEvent.click(within(first).getByRole('button', { name: 'Got it' }));

    const second = await screen.findByRole('dialog', { name: 'Your profile is hidden from feeds' });
    within(second).getByText('Your profile pictures were not of you.');
    within(second).getByText('Until a moderator lifts it');
    fireEvent.click(within(second).getByRole('button', { name: 'Got it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(posts(fetchMock, `/api/users/${ME}/notices/2/seen`)).toHaveLength(1));
    expect(posts(fetchMock, `/api/users/${ME}/notices/1/seen`)).toHaveLength(1);
  });

  it('an appeal sends the action and the text once; the dialog says what happens next', async () => {
    const fetchMock = serve([makeNotice({ action: { kind: 'hide', endsAt: '2026-12-27T10:00:00.000Z' } })]);
    renderWithProviders(<NoticeHost userId={ME} />);
    const dialog = await screen.findByRole('dialog', { name: 'Your profile is hidden from feeds' });
    within(dialog).getByText(`Until ${formatDateTime('2026-12-27T10:00:00.000Z')}`);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Appeal' }));
    fireEvent.change(within(dialog).getByLabelText('Why should we look at it again?'), {
      target: { value: 'Those pictures are of me, I can show it.' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send appeal' }));
    await within(dialog).findByText(APPEAL_SENT_TEXT);
    expect(posts(fetchMock, `/api/users/${ME}/appeals`)).toEqual([
      { actionId: 501, text: 'Those pictures are of me, I can show it.' },
    ]);
    expect(within(dialog).queryByRole('button', { name: 'Send appeal' })).toBeNull();
  });

  it("the server's refusal of an appeal is said in the dialog", async () => {
    serve([makeNotice({ action: { kind: 'warn', endsAt: null } })], () =>
      jsonResponse({ error: 'conflict', message: 'You have already appealed this decision.' }, { status: 409 }),
    );
    renderWithProviders(<NoticeHost userId={ME} />);
    const dialog = await screen.findByRole('dialog', { name: 'You received a warning' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Appeal' }));
    fireEvent.change(within(dialog).getByLabelText('Why should we look at it again?'), {
      target: { value: 'I did not send those messages.' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send appeal' }));
    await within(dialog).findByText('You have already appealed this decision.');
  });

  it("an appeal's outcome: reversed, with the moderator's answer; the decision it reversed is not shown again", async () => {
    const fetchMock = serve([
      // The suspension the person saw on the login screen, never marked seen there (no session).
      makeNotice({ id: 30, createdAt: '2026-11-27T09:00:00.000Z' }),
      makeNotice({
        kind: 'appealOutcome',
        canAppeal: false,
        appeal: { state: 'reversed', explanation: 'We read the whole chat again: the report was mistaken.' },
      }),
    ]);
    renderWithProviders(<NoticeHost userId={ME} />);
    const dialog = await screen.findByRole('dialog', { name: 'Your appeal was accepted' });
    within(dialog).getByText('We read the whole chat again: the report was mistaken.');
    within(dialog).getByText(/reversed the decision/);
    expect(within(dialog).queryByText(/^Until /)).toBeNull();
    await waitFor(() => expect(posts(fetchMock, `/api/users/${ME}/notices/30/seen`)).toHaveLength(1));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Got it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
});
