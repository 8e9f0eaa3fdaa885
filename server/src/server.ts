import http from 'node:http';
import { createApp } from './app';
import type { AppDeps } from './app-deps';
import { type AppConfig, exposedDevLoginWarning } from './config';
import { ArtworkUrls } from './core/artwork/artwork-urls';
import { createBlueskyClient } from './core/bluesky/bluesky-client';
import { initOrm } from './core/db/orm';
import { DatabaseOutageWatch } from './core/db/outage';
import { JobQueue } from './core/jobs/job-queue';
import { OutboxRelay } from './core/jobs/outbox';
import { createLogger, type Logger } from './core/logger';
import { createMailer } from './core/mail/mailer';
import { createMediaStore } from './core/media';
import { createServerMetrics } from './core/metrics/metrics';
import { serveMetrics } from './core/metrics/metrics-server';
import { createEmitter } from './core/realtime/emitter';
import { Publisher } from './core/realtime/publisher';
import { watchRedis } from './core/realtime/watch-redis';
import { connectRedis, replicated } from './core/redis/redis-settings';
import { Reauthentication } from './features/auth/reauth';
import { type Clock, realTimer, SessionService, type SetTimer } from './features/auth/session.service';
import { ChatService } from './features/chat/chat.service';
import { BadgePusher } from './features/matches/badges.service';
import { refuseSuspended } from './features/moderation/notices';
import { RateLimits } from './http/rate-limits';
import { preparePrivateDir, startTempSweeper } from './http/upload-temp';
import { createRealtime, type IoServer } from './realtime/io';

export interface RunningServer {
  deps: AppDeps;
  http: http.Server;
  io: IoServer;
  url: string;
  /** Where Prometheus scrapes this instance (METRICS_PORT), if anywhere. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

/** Builds every dependency, the app and Socket.IO, and listens. Used by main.ts and tests. */
/** How long a shutdown waits for the requests in progress. */
const DRAIN_MS = 5000;

export async function startServer(
  config: AppConfig,
  logger: Logger = createLogger('server', config.logLevel, { format: config.logFormat }),
  /**
   * Tests move time by hand (token expiry and rotation, a socket's login ending, the age of upload
   * temp files) instead of sleeping, and may sweep the upload temp dir more often than every 10 minutes.
   */
  options: { clock?: Clock; setTimer?: SetTimer; uploadSweepEveryMs?: number } = {},
): Promise<RunningServer> {
  // Fails the start with a clear message when the directory is someone else's (a shared /tmp).
  await preparePrivateDir(config.uploadTempDir);
  const orm = await initOrm(config.databaseUrl);
  const redis = connectRedis(config.redis, { maxRetriesPerRequest: 3, lazyConnect: false });
  // Redis away (a restart, a failover): commands fail and ioredis reconnects; log it, never crash.
  watchRedis(redis, 'redis', logger);
  const emitter = createEmitter(redis);
  const publisher = new Publisher(emitter);
  const badges = new BadgePusher({ orm, publisher, logger });
  const limits = new RateLimits(redis, { scale: config.rateLimitScale, chatSendLimit: config.chatSendLimit });
  const jobs = new JobQueue(redis, { confirmOnReplica: replicated(config.redis) });
  // Sockets are counted once the realtime server exists (below); until then there are none.
  let sockets = () => 0;
  const metrics = createServerMetrics(orm, redis, () => sockets(), { served: config.metrics.port !== undefined });
  const deps: AppDeps = {
    config,
    orm,
    redis,
    logger,
    jobs,
    outbox: new OutboxRelay(orm, jobs, logger).start(),
    media: createMediaStore(config.media),
    artwork: new ArtworkUrls(config.imageProxy.key),
    sessions: new SessionService(config, options.clock, refuseSuspended(config.tokenKey)),
    mail: createMailer(config.mail),
    reauth: new Reauthentication(redis, options.clock),
    emitter,
    publisher,
    badges,
    limits,
    chat: new ChatService({ limits, metrics, redis }),
    bluesky: await createBlueskyClient({ config: config.bluesky, orm, redis, tokenKey: config.tokenKey }),
    databaseOutage: new DatabaseOutageWatch(orm, logger),
    lifecycle: { draining: false },
    metrics,
  };
  const app = createApp(deps);
  // Uploads delete their own temp files; this catches what a killed server left.
  const uploadSweeper = startTempSweeper(config.uploadTempDir, {
    logger,
    now: options.clock,
    everyMs: options.uploadSweepEveryMs,
  });
  const server = http.createServer(app);
  // Requests being answered now, so a shutdown lets them finish (a send acknowledged is a send stored).
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
  const realtime = createRealtime(server, deps, app.get('trust proxy fn'), {
    now: options.clock ?? Date.now,
    setTimer: options.setTimer ?? realTimer,
  });
  sockets = () => realtime.io.engine.clientsCount;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const metricsServer = await serveMetrics(metrics, config.metrics, logger);
  // HOST is the operator's choice, but an exposed dev login must not go unnoticed.
  const exposed = exposedDevLoginWarning(config.host, config.allowDevLogin);
  if (exposed) logger.warn(exposed);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    deps,
    http: server,
    io: realtime.io,
    url: `http://localhost:${port}`,
    metricsUrl: metricsServer?.url,
    async close() {
      // Not ready from now on: the load balancer stops sending new requests while this instance
      // still answers them (drainNoticeMs), then it closes.
      deps.lifecycle.draining = true;
      if (config.drainNoticeMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainNoticeMs));
      await metricsServer?.close();
      // Graceful: take no new connections, let the requests in progress finish (at most
      // DRAIN_MS), then close the sockets (their clients reconnect to another instance).
      server.close();
      server.closeIdleConnections();
      uploadSweeper.stop();
      deps.databaseOutage.close();
      const drainUntil = Date.now() + DRAIN_MS;
      while (inFlight > 0 && Date.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 20));
      await realtime.close();
      server.closeAllConnections();
      await deps.badges.idle();
      // Staged jobs are relayed by whichever server runs next if Redis cannot take them now.
      await deps.outbox.close();
      await deps.jobs.close();
      deps.mail?.close();
      await metrics.close();
      await orm.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
