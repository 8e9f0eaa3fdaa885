/** A small leveled logger writing one line per event; enough for a process supervisor to collect. */
export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, extra?: unknown): void;
  info(message: string, extra?: unknown): void;
  warn(message: string, extra?: unknown): void;
  error(message: string, extra?: unknown): void;
}

export function createLogger(name: string, level: Level = 'info'): Logger {
  const write = (at: Exclude<Level, 'silent'>, message: string, extra?: unknown) => {
    if (order[at] < order[level]) return;
    const line = `${new Date().toISOString()} ${at.toUpperCase()} [${name}] ${message}`;
    const stream = at === 'error' || at === 'warn' ? process.stderr : process.stdout;
    stream.write(extra === undefined ? `${line}\n` : `${line} ${formatExtra(extra)}\n`);
  };
  return {
    debug: (m, e) => write('debug', m, e),
    info: (m, e) => write('info', m, e),
    warn: (m, e) => write('warn', m, e),
    error: (m, e) => write('error', m, e),
  };
}

function formatExtra(extra: unknown): string {
  if (extra instanceof Error) return extra.stack ?? extra.message;
  try {
    return JSON.stringify(extra);
  } catch {
    return String(extra);
  }
}
