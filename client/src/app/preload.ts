/**
 * Starts loading a lazy chunk before React asks for it. A failure is ignored here: React.lazy
 * loads again when it renders, and reports the error then.
 */
export function preload(load: () => Promise<unknown>): void {
  load().catch(() => {});
}
