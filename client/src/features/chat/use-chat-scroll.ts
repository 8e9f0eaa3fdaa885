import { useLayoutEffect, useRef } from 'react';

/** Within this distance of the bottom, the list follows new messages. */
const STICK_PX = 48;
/** Within this distance of the top, older messages are loaded. */
const NEAR_TOP_PX = 64;

interface Position {
  atBottom: boolean;
  /** scrollHeight - scrollTop: what stays the same when content is added above the viewport. */
  fromBottom: number;
}

function measure(el: HTMLElement): Position {
  return {
    atBottom: el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX,
    fromBottom: el.scrollHeight - el.scrollTop,
  };
}

interface ChatScrollOptions {
  /** Keys of the first and last items shown; a change means messages were prepended or appended. */
  firstKey: string | undefined;
  lastKey: string | undefined;
  /** The last item is the user's own (just sent): always scroll to it. */
  lastIsOwn: boolean;
  onNearTop: () => void;
}

/**
 * Scrolling of the message list: starts at the bottom, follows new messages while the reader is at
 * the bottom (or sent them), keeps the visible messages in place when older ones are prepended, and
 * asks for older messages near the top.
 */
export function useChatScroll({ firstKey, lastKey, lastIsOwn, onNearTop }: ChatScrollOptions) {
  const ref = useRef<HTMLDivElement>(null);
  const position = useRef<Position>({ atBottom: true, fromBottom: 0 });
  const previous = useRef<{ first?: string; last?: string }>({});

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const { first, last } = previous.current;
    const appended = lastKey !== undefined && lastKey !== last;
    const prepended = first !== undefined && firstKey !== first;
    if (appended && (last === undefined || position.current.atBottom || lastIsOwn)) el.scrollTop = el.scrollHeight;
    else if (prepended) el.scrollTop = el.scrollHeight - position.current.fromBottom;
    previous.current = { first: firstKey, last: lastKey };
    position.current = measure(el);
  }, [firstKey, lastKey, lastIsOwn]);

  const onScroll = () => {
    const el = ref.current;
    if (!el) return;
    position.current = measure(el);
    if (el.scrollTop <= NEAR_TOP_PX) onNearTop();
  };

  return { ref, onScroll };
}
