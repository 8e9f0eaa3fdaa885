// A database outage can lose events: a commit that reached the disk just as the connection died is
// answered 503, its retry finds it stored and announces nothing again, so the other person never
// hears of it live. Once the database answers again, whoever listens here (the sockets of this
// server: `realtime:resync`, docs/chat.md) is told to catch up, as after a Redis outage.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../logger';

export class DatabaseOutageWatch {
  private probing = false;
  private closed = false;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
    private readonly probeEveryMs = 250,
  ) {}

  /** Called when a request or socket event was answered 503 because the database was away. */
  noticed(): void {
    if (this.probing || this.closed) return;
    this.probing = true;
    void this.probeUntilBack();
  }

  onRecovered(listener: () => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.closed = true;
  }

  private async probeUntilBack(): Promise<void> {
    while (!this.closed) {
      try {
        await this.orm.em.fork().getConnection().execute('select 1');
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, this.probeEveryMs).unref());
      }
    }
    this.probing = false;
    if (this.closed) return;
    this.logger.info('the database answers again: sockets are told to catch up');
    for (const listener of this.listeners) listener();
  }
}
