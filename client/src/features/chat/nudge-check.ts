// The word check of the safety nudge (shared/src/moderation/message-nudge.ts) is most of its size
// in obscenity's word list (~16 KB gzip, three times the rest of the chat screen): it loads in a
// chunk of its own once the composer shows, not with the screen. The server flags on its own, so a
// check that failed to load only means no question before that send.

type Check = (text: string) => boolean;

let loaded: Check | undefined;
let loading: Promise<Check> | undefined;

export function loadNudgeCheck(): Promise<Check> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= import('@shared/moderation/message-nudge').then(
    (module) => {
      loaded = module.isMessageFlagged;
      return loaded;
    },
    () => {
      loading = undefined; // tried again at the next send
      return () => false;
    },
  );
  return loading;
}

/** The check if it has loaded (then a send is decided at once), else undefined. */
export function loadedNudgeCheck(): Check | undefined {
  return loaded;
}
