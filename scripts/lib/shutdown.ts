// Ctrl-C (or SIGTERM / SIGHUP) during a benchmark: stop what it started, once, then exit 130.

export interface Shutdown {
  /** True once a signal arrived: loops end, the main flow parks. */
  readonly stopping: boolean;
  /** After a signal the main flow stops here for good; the signal handler cleans up and exits. */
  parkIfStopping(): Promise<void>;
}

export function cleanUpOnSignals(what: string, cleanup: () => Promise<void>, log: (line: string) => void): Shutdown {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping ${what}`);
      setTimeout(() => process.exit(130), 45_000).unref();
      void cleanup().finally(() => process.exit(130));
    });
  }
  return {
    get stopping() {
      return stopping;
    },
    parkIfStopping: () => (stopping ? new Promise<never>(() => {}) : Promise.resolve()),
  };
}
