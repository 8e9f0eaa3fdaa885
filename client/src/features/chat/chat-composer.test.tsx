import { CHAT_TEXTS, LIMITS } from '@shared/constants';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChatComposer, NUDGE_TEXTS } from './chat-composer';
import { loadNudgeCheck } from './nudge-check';

type Send = (text: string) => Promise<boolean>;

/** The composer with its draft in state, and `sending` true while onSend's promise is pending. */
function Harness({ onSend, initial = '', error = null }: { onSend: Send; initial?: string; error?: string | null }) {
  const [value, setValue] = useState(initial);
  const [sending, setSending] = useState(false);
  return (
    <ChatComposer
      value={value}
      onChange={setValue}
      sending={sending}
      error={error}
      onSend={async (text) => {
        setSending(true);
        try {
          return await onSend(text);
        } finally {
          setSending(false);
        }
      }}
    />
  );
}

const input = () => screen.getByPlaceholderText(CHAT_TEXTS.placeholder) as HTMLTextAreaElement;
const sendButton = () => screen.getByRole('button', { name: 'Send message' }) as HTMLButtonElement;
const type = (text: string) => fireEvent.change(input(), { target: { value: text } });
const enter = (init: { shiftKey?: boolean } = {}) => fireEvent.keyDown(input(), { key: 'Enter', ...init });

describe('ChatComposer', () => {
  // The word check loads in a chunk of its own (nudge-check.ts): loaded first, every send is decided at once.
  beforeAll(async () => {
    await loadNudgeCheck();
  });

  it("is a labelled textarea with the placeholder 'Type a message...'", () => {
    render(<Harness onSend={vi.fn()} />);
    expect(input().tagName).toBe('TEXTAREA');
    expect(screen.getByLabelText('Message')).toBe(input());
  });

  it('Enter sends the text and empties the input; Shift+Enter does not send', async () => {
    const onSend = vi.fn<Send>(async () => true);
    render(<Harness onSend={onSend} />);
    type('Hello there');
    // Shift+Enter is left to the textarea (a new line), nothing is sent.
    expect(enter({ shiftKey: true })).toBe(true);
    expect(onSend).not.toHaveBeenCalled();

    await act(async () => {
      expect(enter()).toBe(false);
    });
    expect(onSend).toHaveBeenCalledExactlyOnceWith('Hello there');
    expect(input().value).toBe('');
  });

  it('the send button sends too, and the text is trimmed at the ends only', async () => {
    const onSend = vi.fn<Send>(async () => true);
    render(<Harness onSend={onSend} />);
    type('  two\nlines \n');
    await act(async () => fireEvent.click(sendButton()));
    expect(onSend).toHaveBeenCalledWith('two\nlines');
  });

  it('blank or whitespace-only text cannot be sent', () => {
    const onSend = vi.fn<Send>(async () => true);
    render(<Harness onSend={onSend} />);
    expect(sendButton().disabled).toBe(true);
    type('   \n\t ');
    expect(sendButton().disabled).toBe(true);
    enter();
    fireEvent.submit(input().form as HTMLFormElement);
    expect(onSend).not.toHaveBeenCalled();
  });

  it('over 2,000 characters shows an error and cannot be sent; a counter shows near the limit', () => {
    const onSend = vi.fn<Send>(async () => true);
    render(<Harness onSend={onSend} />);
    type('x'.repeat(1799));
    expect(screen.queryByTestId('message-length')).toBeNull();
    type('x'.repeat(1800));
    expect(screen.getByTestId('message-length').textContent).toBe('1,800 / 2,000');
    expect(screen.queryByRole('alert')).toBeNull();

    type('x'.repeat(LIMITS.messageMaxLength));
    expect(sendButton().disabled).toBe(false);

    type('x'.repeat(LIMITS.messageMaxLength + 1));
    expect(screen.getByRole('alert').textContent).toBe(CHAT_TEXTS.tooLong);
    expect(input().getAttribute('aria-invalid')).toBe('true');
    expect(input().getAttribute('aria-describedby')).toContain(screen.getByRole('alert').id);
    expect(sendButton().disabled).toBe(true);
    enter();
    expect(onSend).not.toHaveBeenCalled();
    // Nothing is cut off: the text stays for the person to shorten.
    expect(input().value).toHaveLength(LIMITS.messageMaxLength + 1);
  });

  it('is disabled while a send is in flight: no second send until it settles', async () => {
    let finish: (ok: boolean) => void = () => {};
    const onSend = vi.fn<Send>(
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
    );
    render(<Harness onSend={onSend} />);
    type('first');
    await act(async () => enter());
    type('second');
    expect(sendButton().disabled).toBe(true);
    await act(async () => enter());
    await act(async () => fireEvent.click(sendButton()));
    expect(onSend).toHaveBeenCalledTimes(1);

    await act(async () => finish(true));
    expect(sendButton().disabled).toBe(false);
    await act(async () => enter());
    expect(onSend).toHaveBeenLastCalledWith('second');
  });

  it('a failed send puts the text back, before anything typed meanwhile', async () => {
    let finish: (ok: boolean) => void = () => {};
    const onSend = vi.fn<Send>(
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
    );
    render(<Harness onSend={onSend} />);
    type('Did you hear the latest episode?');
    await act(async () => enter());
    expect(input().value).toBe('');
    await act(async () => finish(false));
    expect(input().value).toBe('Did you hear the latest episode?');

    type('again');
    await act(async () => enter());
    type('and more');
    await act(async () => finish(false));
    expect(input().value).toBe('again\nand more');
  });

  it('shows the send error', () => {
    render(<Harness onSend={vi.fn()} error={CHAT_TEXTS.sendFailed} />);
    expect(screen.getByRole('alert').textContent).toBe('Failed to send message. Please try again.');
  });

  describe('the safety nudge', () => {
    const HURTFUL = 'you are a f u c k i n g idiot';
    const question = () => screen.queryByRole('alertdialog', { name: NUDGE_TEXTS.title });
    const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

    it('a normal message sends at once, without the question', async () => {
      const onSend = vi.fn<Send>(async () => true);
      render(<Harness onSend={onSend} />);
      type('Have you heard the Scunthorpe episode? A classic.');
      await act(async () => enter());
      expect(onSend).toHaveBeenCalledExactlyOnceWith('Have you heard the Scunthorpe episode? A classic.');
      expect(question()).toBeNull();
    });

    it("a flagged message asks 'Are you sure?' first, labelled for screen readers, with the focus on Edit", async () => {
      const onSend = vi.fn<Send>(async () => true);
      render(<Harness onSend={onSend} />);
      type(HURTFUL);
      await act(async () => enter());
      expect(onSend).not.toHaveBeenCalled();
      const dialog = question();
      expect(dialog).not.toBeNull();
      expect(dialog?.getAttribute('aria-describedby')).toBeTruthy();
      expect(document.getElementById(dialog?.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
        NUDGE_TEXTS.body,
      );
      expect(document.activeElement).toBe(button('Edit'));
      // The text stays in the input while the question is open; the send button alone does not send.
      expect(input().value).toBe(HURTFUL);
      await act(async () => fireEvent.click(sendButton()));
      await act(async () => enter());
      expect(onSend).not.toHaveBeenCalled();
    });

    it('Edit keeps the text and puts the focus back in the input; Escape does the same', async () => {
      const onSend = vi.fn<Send>(async () => true);
      render(<Harness onSend={onSend} />);
      type(HURTFUL);
      await act(async () => enter());
      await act(async () => fireEvent.click(button('Edit')));
      expect(question()).toBeNull();
      expect(input().value).toBe(HURTFUL);
      expect(document.activeElement).toBe(input());
      expect(input().selectionStart).toBe(HURTFUL.length);

      await act(async () => enter());
      expect(question()).not.toBeNull();
      await act(async () => fireEvent.keyDown(button('Edit'), { key: 'Escape' }));
      expect(question()).toBeNull();
      expect(document.activeElement).toBe(input());
      expect(onSend).not.toHaveBeenCalled();

      // Edited into something kind: it goes at once.
      type('you are a lovely idiot');
      await act(async () => enter());
      expect(onSend).toHaveBeenCalledExactlyOnceWith('you are a lovely idiot');
    });

    it('changing the text takes the question away', async () => {
      render(<Harness onSend={vi.fn<Send>(async () => true)} />);
      type(HURTFUL);
      await act(async () => enter());
      expect(question()).not.toBeNull();
      type(`${HURTFUL}!`);
      expect(question()).toBeNull();
    });

    it('Send anyway sends the text as typed, empties the input and keeps the focus there', async () => {
      const onSend = vi.fn<Send>(async () => true);
      render(<Harness onSend={onSend} />);
      type(`  ${HURTFUL} `);
      await act(async () => enter());
      await act(async () => fireEvent.click(button('Send anyway')));
      expect(onSend).toHaveBeenCalledExactlyOnceWith(HURTFUL);
      expect(input().value).toBe('');
      expect(question()).toBeNull();
      expect(document.activeElement).toBe(input());
    });
  });
});

/** A ChatComposer of a fresh module graph whose word check loads only once `open()` is called. */
async function composerWithGatedCheck() {
  vi.resetModules();
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  vi.doMock('@shared/moderation/message-nudge', async () => {
    await gate;
    return vi.importActual('@shared/moderation/message-nudge');
  });
  const { ChatComposer: Composer } = await import('./chat-composer');
  return { Composer, open };
}

function GatedHarness({ Composer, onSend }: { Composer: typeof ChatComposer; onSend: Send }) {
  const [value, setValue] = useState('');
  return <Composer value={value} onChange={setValue} sending={false} error={null} onSend={onSend} />;
}

describe('ChatComposer while the word check is still loading', () => {
  afterEach(() => {
    vi.doUnmock('@shared/moderation/message-nudge');
  });

  it('a send waits for it, and a second Enter meanwhile is no second send', async () => {
    const { Composer, open } = await composerWithGatedCheck();
    const onSend = vi.fn<Send>(async () => true);
    render(<GatedHarness Composer={Composer} onSend={onSend} />);
    type('Any news from the Serial team?');
    await act(async () => {
      enter();
      enter();
    });
    expect(onSend).not.toHaveBeenCalled();
    await act(async () => open());
    await waitFor(() => expect(onSend).toHaveBeenCalledExactlyOnceWith('Any news from the Serial team?'));
  });

  it('a flagged text sent before it loaded is still asked about', async () => {
    const { Composer, open } = await composerWithGatedCheck();
    const onSend = vi.fn<Send>(async () => true);
    render(<GatedHarness Composer={Composer} onSend={onSend} />);
    type('you are a f u c k i n g idiot');
    await act(async () => enter());
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await act(async () => open());
    expect(await screen.findByRole('alertdialog', { name: 'Are you sure?' })).toBeTruthy();
    expect(onSend).not.toHaveBeenCalled();
  });
});
