import type { Role } from '@shared/schemas/moderation';
import {
  type Appeal,
  MODERATION_TEXTS,
  type QueueSubject,
  type SubjectDetail,
  type TransparencyReport,
} from '@shared/schemas/moderation';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { makeQueueSubject, makeSubjectDetail } from '@/test/moderation-fixtures';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { ModerationScreen } from './moderation-screen';

const ME = 5;
const OTHER_MODERATOR = { id: 6, username: 'mona' };

interface ServerState {
  subjects: QueueSubject[];
  details: Record<number, SubjectDetail>;
  appeals?: Appeal[];
  /** Answers instead of the default, by "METHOD path". */
  answers?: Record<string, () => Response>;
}

/** A fake moderation API over `state`; every request is recorded. */
function serve(state: ServerState) {
  return mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    const { pathname, searchParams } = new URL(url, 'http://localhost');
    const custom = state.answers?.[`${method} ${pathname}`];
    if (custom) return custom();
    if (method === 'GET' && pathname === '/api/moderation/queue') {
      const wanted = searchParams.get('state') ?? 'open';
      const reason = searchParams.get('reason');
      return jsonResponse({
        subjects: state.subjects.filter(
          (s) => s.state === wanted && (!reason || s.reasons.some((r) => r.reason === reason)),
        ),
      });
    }
    const subject = pathname.match(/^\/api\/moderation\/subjects\/(\d+)(\/claim|\/actions)?$/);
    if (subject) {
      const id = Number(subject[1]);
      const detail = state.details[id];
      if (!detail) return jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 });
      if (method === 'GET' && !subject[2]) return jsonResponse(detail);
      if (method === 'POST' && subject[2] === '/claim') {
        detail.subject = { ...detail.subject, claimedBy: { id: ME, username: 'max' } };
        return jsonResponse(detail.subject);
      }
      if (method === 'POST' && subject[2] === '/actions') {
        const body = JSON.parse(String(init.body));
        const event = {
          id: 900,
          subjectId: id,
          subjectName: detail.subject.displayName,
          kind: body.kind,
          moderator: { id: ME, username: 'max' },
          reason: body.reason,
          rule: body.rule,
          explanation: body.explanation,
          endsAt: body.days ? '2026-12-04T10:00:00.000Z' : null,
          createdAt: new Date().toISOString(),
        };
        detail.subject = { ...detail.subject, state: 'closed', claimedBy: null };
        detail.events = [event, ...detail.events];
        state.subjects = state.subjects.map((s) => (s.subjectId === id ? { ...s, state: 'closed' } : s));
        return jsonResponse({ event, subject: detail.subject }, { status: 201 });
      }
    }
    if (method === 'GET' && pathname === '/api/moderation/appeals')
      return jsonResponse({ appeals: state.appeals ?? [] });
    const appeal = pathname.match(/^\/api\/moderation\/appeals\/(\d+)$/);
    if (appeal && method === 'POST') {
      const found = state.appeals?.find((a) => a.id === Number(appeal[1]));
      if (!found) return jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 });
      const body = JSON.parse(String(init.body));
      state.appeals = state.appeals?.filter((a) => a !== found);
      return jsonResponse({ ...found, state: body.outcome, decidedAt: new Date().toISOString() });
    }
    return jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 });
  });
}

type FetchMock = ReturnType<typeof serve>;
const requests = (fetchMock: FetchMock, method: string, path: string) =>
  fetchMock.mock.calls
    .filter(([url, init]) => (init?.method ?? 'GET') === method && String(url).split('?')[0] === path)
    .map(([url, init]) => ({ url: String(url), body: init?.body ? JSON.parse(String(init.body)) : undefined }));

function renderScreen(role: Role = 'moderator', path = '/moderation') {
  return renderWithProviders(<ModerationScreen role={role} userId={ME} />, { path });
}

/** Two people in the queue: Harry (reported by three people) and Sandy. */
function twoPeople(): ServerState {
  const harry = makeQueueSubject({
    reporterCount: 3,
    reasons: [
      { reason: 'harassment', count: 2 },
      { reason: 'spam', count: 1 },
    ],
    standing: { hiddenFromFeeds: true, suspendedUntil: null, banned: false, autoHidden: true },
    strikes: 1,
  });
  const sandy = makeQueueSubject({ subjectId: 13, displayName: 'Sandy Spam', reasons: [{ reason: 'spam', count: 1 }] });
  return {
    subjects: [harry, sandy],
    details: {
      12: makeSubjectDetail({ subject: harry, suggestion: 'suspend' }),
      13: makeSubjectDetail({
        subject: { ...sandy, username: 'sandy' },
        reports: [{ ...makeSubjectDetail().reports[0]!, id: 82, reason: 'spam', messages: [] }],
      }),
    },
  };
}

const queue = () => screen.findByRole('list', { name: 'Queue' });
const key = (k: string, target: Element = document.body) => act(() => void fireEvent.keyDown(target, { key: k }));

describe('Moderation: the queue', () => {
  it('lists people with their reporters, reasons and standing; a person shows reports, messages and history', async () => {
    serve(twoPeople());
    renderScreen();
    const list = await queue();
    const harry = within(list).getByRole('button', { name: 'Harry Asser' });
    expect(harry.textContent).toContain('3 reporters');
    expect(harry.textContent).toContain('Harassment 2, Spam 1');
    expect(harry.textContent).toContain('Auto-hidden');
    expect(harry.textContent).toContain('1 strike');
    within(list).getByRole('button', { name: 'Sandy Spam' });

    fireEvent.click(harry);
    const detail = await screen.findByRole('article', { name: 'Harry Asser' });
    const report = within(detail).getByRole('article', { name: 'Report by @vicky' });
    within(report).getByText('He would not stop.');
    const messages = within(report).getByRole('list', { name: 'Reported messages' });
    within(messages).getByText('I know where you live');
    within(messages).getByText('answer me');
    within(detail).getByText('Loves true crime');
    within(detail).getByText('No moderator has acted on this person yet.');
    expect(within(detail).getByText(/Suggested next step/).textContent).toContain('Suspend');
    expect(harry.getAttribute('aria-current')).toBe('true');
  });

  it('claim, then suspend for 7 days: the body the server gets, and the queue is read again', async () => {
    const fetchMock = serve(twoPeople());
    renderScreen('moderator', '/moderation?subject=12');
    const detail = await screen.findByRole('article', { name: 'Harry Asser' });
    // Only the moderator who claimed the person may act.
    expect((within(detail).getByRole('button', { name: 'Apply' }) as HTMLButtonElement).disabled).toBe(true);
    within(detail).getByText(MODERATION_TEXTS.notClaimedByYou);

    fireEvent.click(within(detail).getByRole('button', { name: 'Claim' }));
    await within(detail).findByText('You are handling this person.');
    expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/claim')).toHaveLength(1);

    fireEvent.click(within(detail).getByRole('radio', { name: 'Suspend' }));
    expect((within(detail).getByLabelText('Days') as HTMLInputElement).value).toBe('7');
    within(detail).getByText(/Treat people with respect/);
    fireEvent.change(within(detail).getByLabelText('Explanation'), {
      target: { value: 'You sent threatening messages after being asked to stop.' },
    });
    const queueReads = requests(fetchMock, 'GET', '/api/moderation/queue').length;
    fireEvent.click(within(detail).getByRole('button', { name: 'Apply' }));

    await waitFor(() => expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/actions')).toHaveLength(1));
    expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/actions')[0]?.body).toEqual({
      kind: 'suspend',
      reason: 'harassment',
      rule: 'respect',
      explanation: 'You sent threatening messages after being asked to stop.',
      days: 7,
    });
    // The history shows the action; Harry leaves the open queue.
    await within(detail).findByText('by @max');
    await waitFor(() => expect(requests(fetchMock, 'GET', '/api/moderation/queue').length).toBeGreaterThan(queueReads));
    await waitFor(() =>
      expect(
        within(screen.getByRole('list', { name: 'Queue' })).queryByRole('button', { name: 'Harry Asser' }),
      ).toBeNull(),
    );
  });

  it('a warning sends no days; a too short explanation is said before anything is sent', async () => {
    const state = twoPeople();
    state.details[12]!.subject.claimedBy = { id: ME, username: 'max' };
    const fetchMock = serve(state);
    renderScreen('moderator', '/moderation?subject=12');
    const detail = await screen.findByRole('article', { name: 'Harry Asser' });
    fireEvent.click(within(detail).getByRole('radio', { name: 'Warn' }));
    fireEvent.change(within(detail).getByLabelText('Explanation'), { target: { value: 'Stop.' } });
    fireEvent.click(within(detail).getByRole('button', { name: 'Apply' }));
    await within(detail).findByText('Say why in a sentence the person will read (at least 10 characters).');
    expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/actions')).toEqual([]);

    fireEvent.change(within(detail).getByLabelText('Explanation'), {
      target: { value: 'Please keep your messages friendly.' },
    });
    fireEvent.click(within(detail).getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/actions')).toHaveLength(1));
    expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/actions')[0]?.body).toEqual({
      kind: 'warn',
      reason: 'harassment',
      rule: 'respect',
      explanation: 'Please keep your messages friendly.',
    });
  });

  it('another moderator claimed the person first: the 409 sentence shows and the person is read again', async () => {
    const state = twoPeople();
    state.answers = {
      'POST /api/moderation/subjects/12/claim': () => {
        state.details[12]!.subject.claimedBy = OTHER_MODERATOR;
        return jsonResponse({ error: 'conflict', message: MODERATION_TEXTS.claimedByOther }, { status: 409 });
      },
    };
    const fetchMock = serve(state);
    renderScreen('moderator', '/moderation?subject=12');
    const detail = await screen.findByRole('article', { name: 'Harry Asser' });
    const reads = requests(fetchMock, 'GET', '/api/moderation/subjects/12').length;
    fireEvent.click(within(detail).getByRole('button', { name: 'Claim' }));
    await within(detail).findByText(MODERATION_TEXTS.claimedByOther);
    await within(detail).findByText('Claimed by @mona');
    expect(requests(fetchMock, 'GET', '/api/moderation/subjects/12').length).toBeGreaterThan(reads);
    expect(within(detail).queryByRole('button', { name: 'Claim' })).toBeNull();
  });

  it("an action refused with 409 shows the server's sentence", async () => {
    const state = twoPeople();
    state.details[12]!.subject.claimedBy = { id: ME, username: 'max' };
    state.answers = {
      'POST /api/moderation/subjects/12/actions': () =>
        jsonResponse({ error: 'conflict', message: MODERATION_TEXTS.claimedByOther }, { status: 409 }),
    };
    serve(state);
    renderScreen('moderator', '/moderation?subject=12');
    const detail = await screen.findByRole('article', { name: 'Harry Asser' });
    fireEvent.click(within(detail).getByRole('radio', { name: 'Ban' }));
    fireEvent.change(within(detail).getByLabelText('Explanation'), {
      target: { value: 'Threats against several people.' },
    });
    fireEvent.click(within(detail).getByRole('button', { name: 'Apply' }));
    await within(detail).findByText(MODERATION_TEXTS.claimedByOther);
  });

  it('filters by state and reason', async () => {
    const state = twoPeople();
    state.subjects.push(makeQueueSubject({ subjectId: 14, displayName: 'Ellie Escalated', state: 'escalated' }));
    const fetchMock = serve(state);
    renderScreen();
    await queue();
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'spam' } });
    await waitFor(() =>
      expect(requests(fetchMock, 'GET', '/api/moderation/queue').map((r) => r.url)).toContain(
        '/api/moderation/queue?state=open&reason=spam',
      ),
    );
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'escalated' } });
    const list = await queue();
    await within(list).findByRole('button', { name: 'Ellie Escalated' });
    expect(within(list).queryByRole('button', { name: 'Harry Asser' })).toBeNull();
  });
});

describe('Moderation: keyboard shortcuts', () => {
  it('j/k move, Enter opens, c claims, s chooses suspend into the explanation, Escape closes', async () => {
    const fetchMock = serve(twoPeople());
    renderScreen();
    const list = await queue();
    const harry = within(list).getByRole('button', { name: 'Harry Asser' });
    const sandy = within(list).getByRole('button', { name: 'Sandy Spam' });

    key('j');
    expect(document.activeElement).toBe(sandy);
    key('k');
    expect(document.activeElement).toBe(harry);
    key('j');
    // Enter where it would press nothing else opens the highlighted person.
    key('Enter');
    const detail = await screen.findByRole('article', { name: 'Sandy Spam' });

    key('c');
    await within(detail).findByText('You are handling this person.');
    expect(requests(fetchMock, 'POST', '/api/moderation/subjects/13/claim')).toHaveLength(1);

    key('s');
    expect((within(detail).getByRole('radio', { name: 'Suspend' }) as HTMLInputElement).checked).toBe(true);
    const explanation = within(detail).getByLabelText('Explanation');
    expect(document.activeElement).toBe(explanation);
    // A chosen action's radio is no text field: the next letter still chooses.
    const suspend = within(detail).getByRole('radio', { name: 'Suspend' });
    suspend.focus();
    key('b', suspend);
    expect((within(detail).getByRole('radio', { name: 'Ban' }) as HTMLInputElement).checked).toBe(true);

    key('Escape', document.body);
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Sandy Spam' })).toBeNull());
  });

  it('never fire while typing: letters go into the explanation, Escape there does not close', async () => {
    const state = twoPeople();
    state.details[12]!.subject.claimedBy = { id: ME, username: 'max' };
    const fetchMock = serve(state);
    renderScreen('moderator', '/moderation?subject=12');
    const detail = await screen.findByRole('article', { name: 'Harry Asser' });
    fireEvent.click(within(detail).getByRole('radio', { name: 'Warn' }));
    const explanation = within(detail).getByLabelText('Explanation');
    explanation.focus();
    for (const k of ['j', 'k', 'c', 's', 'b', 'd', 'Enter', 'Escape', '?']) key(k, explanation);
    expect((within(detail).getByRole('radio', { name: 'Warn' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole('article', { name: 'Harry Asser' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Keyboard shortcuts' })).toBeNull();
    expect(requests(fetchMock, 'POST', '/api/moderation/subjects/12/claim')).toEqual([]);
    // A modifier is the browser's (Ctrl+J opens downloads), not ours.
    act(() => void fireEvent.keyDown(document.body, { key: 'j', ctrlKey: true }));
    expect(document.activeElement).toBe(explanation);
  });

  it('? shows the shortcuts, Escape hides them', async () => {
    serve(twoPeople());
    renderScreen();
    await queue();
    key('?');
    const help = screen.getByRole('region', { name: 'Keyboard shortcuts' });
    within(help).getByText('Next / previous person');
    key('Escape');
    expect(screen.queryByRole('region', { name: 'Keyboard shortcuts' })).toBeNull();
  });
});

function makeAppeal(overrides: Partial<Appeal> = {}): Appeal {
  return {
    id: 70,
    actionId: 900,
    subjectId: 12,
    text: 'It was a misunderstanding, we sorted it out.',
    state: 'open',
    createdAt: new Date(Date.now() - 60 * 60_000).toISOString(),
    decidedAt: null,
    action: {
      id: 900,
      subjectId: 12,
      subjectName: 'Harry Asser',
      kind: 'suspend',
      moderator: OTHER_MODERATOR,
      reason: 'harassment',
      rule: 'respect',
      explanation: 'Threatening messages.',
      endsAt: '2026-12-04T10:00:00.000Z',
      createdAt: '2026-11-27T10:00:00.000Z',
    },
    ...overrides,
  };
}

describe('Moderation: appeals', () => {
  it('shows the decision and the appeal; Reverse sends the outcome with the explanation', async () => {
    const state = { ...twoPeople(), appeals: [makeAppeal()] };
    const fetchMock = serve(state);
    renderScreen('moderator', '/moderation?tab=appeals');
    const appeal = await screen.findByRole('article', { name: 'Appeal by Harry Asser' });
    within(appeal).getByText('It was a misunderstanding, we sorted it out.');
    within(appeal).getByText('Threatening messages.');
    within(appeal).getByText('by @mona');
    fireEvent.change(within(appeal).getByLabelText('Your answer (the person reads this)'), {
      target: { value: 'The chat shows it was mutual banter.' },
    });
    fireEvent.click(within(appeal).getByRole('button', { name: 'Reverse' }));
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Appeal by Harry Asser' })).toBeNull());
    expect(requests(fetchMock, 'POST', '/api/moderation/appeals/70').map((r) => r.body)).toEqual([
      { outcome: 'reversed', explanation: 'The chat shows it was mutual banter.' },
    ]);
    screen.getByText('No appeals are waiting for you.');
  });

  it("a refusal shows the server's sentence (the moderator took the action)", async () => {
    const state = {
      ...twoPeople(),
      appeals: [makeAppeal()],
      answers: {
        'POST /api/moderation/appeals/70': () =>
          jsonResponse({ error: 'forbidden', message: MODERATION_TEXTS.ownAppeal }, { status: 403 }),
      },
    };
    serve(state);
    renderScreen('moderator', '/moderation?tab=appeals');
    const appeal = await screen.findByRole('article', { name: 'Appeal by Harry Asser' });
    fireEvent.change(within(appeal).getByLabelText('Your answer (the person reads this)'), {
      target: { value: 'I stand by the decision I took.' },
    });
    fireEvent.click(within(appeal).getByRole('button', { name: 'Uphold' }));
    await within(appeal).findByText(MODERATION_TEXTS.ownAppeal);
  });
});

describe('Moderation: admin sections', () => {
  it('a moderator has no audit log or transparency tabs; an admin has both', async () => {
    serve(twoPeople());
    const { unmount } = renderScreen('moderator');
    await queue();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Queue', 'Appeals']);
    unmount();
    renderScreen('admin');
    await queue();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
      'Queue',
      'Appeals',
      'Audit log',
      'Transparency',
    ]);
  });

  it('the audit log reads the newest page, then the page before with "Load more"', async () => {
    const event = (id: number) => ({
      ...makeAppeal().action,
      id,
      kind: 'warn' as const,
      explanation: `Entry ${id}`,
      endsAt: null,
    });
    const fetchMock = mockFetch((url) => {
      if (url === '/api/admin/audit-log') return jsonResponse({ events: [event(9), event(8)], nextBefore: 8 });
      if (url === '/api/admin/audit-log?before=8') return jsonResponse({ events: [event(7)], nextBefore: null });
      return jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 });
    });
    renderScreen('admin', '/moderation?tab=audit');
    const log = await screen.findByRole('list', { name: 'Audit log' });
    within(log).getByText('Entry 9');
    within(log).getByText('Entry 8');
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await within(log).findByText('Entry 7');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull());
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/admin/audit-log', '/api/admin/audit-log?before=8']);
  });

  it('transparency shows the counts for a period and downloads the same JSON', async () => {
    const report: TransparencyReport = {
      from: '2026-11-01',
      to: '2026-11-30',
      reportsByReason: { harassment: 4, spam: 2 },
      actionsByKind: { suspend: 1, warn: 3 },
      medianHoursToAction: 5.25,
      appeals: { received: 2, upheld: 1, reversed: 1, open: 0 },
      automaticHides: 1,
    };
    const fetchMock = mockFetch((url) =>
      url.startsWith('/api/admin/transparency')
        ? jsonResponse(report)
        : jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 }),
    );
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      blobs.push(blob as Blob);
      return 'blob:report';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    renderScreen('admin', '/moderation?tab=transparency');
    const reasons = await screen.findByRole('region', { name: 'Reports by reason' });
    expect(within(reasons).getByText('Harassment').nextSibling?.textContent).toBe('4');
    within(screen.getByRole('region', { name: 'Actions by type' })).getByText('Warned');
    screen.getByText('5.3 h');

    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show' }));
    await waitFor(() =>
      expect(fetchMock.mock.calls.map(([url]) => url)).toContain(
        '/api/admin/transparency?from=2026-11-01&to=2026-11-30',
      ),
    );

    fireEvent.click(await screen.findByRole('button', { name: 'Download JSON' }));
    expect(blobs).toHaveLength(1);
    expect(JSON.parse(await blobs[0]!.text())).toEqual(report);
  });
});
