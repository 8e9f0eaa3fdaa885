import type { Logger } from './logger';

/** On SIGINT/SIGTERM run `close` once, then exit; exit 1 if it fails or takes too long. */
export function closeOnSignals(close: () => Promise<void>, logger: Logger, timeoutMs: number): void {
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      logger.info(`${signal}: shutting down`);
      setTimeout(() => process.exit(1), timeoutMs).unref();
      close().then(
        () => process.exit(0),
        (error) => {
          logger.error('shutdown failed', error);
          process.exit(1);
        },
      );
    });
  }
}
