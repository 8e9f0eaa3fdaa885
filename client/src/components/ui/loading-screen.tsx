/** Shown while the login state is unknown or a screen's code is loading. The text is from SPEC. */
export function LoadingScreen() {
  return (
    <div role="status" aria-live="polite" className="grid min-h-dvh place-items-center text-sm text-zinc-400">
      Loading...
    </div>
  );
}
