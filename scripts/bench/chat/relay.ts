// The floor of the chat benchmark (scripts/bench/chat.ts): a bare Socket.IO relay with the same
// Redis adapter as the server (server/src/realtime/io.ts) and no database, no auth, no validation.
// A socket names itself and its one chat partner in the handshake query (`userId`, `peer`) and
// joins `user:{userId}`; 'message:send' is acked at once with a message shaped like the stored one
// and emitted as 'message:new' to both people's rooms, as the real server does.
// Run as a child process: PORT, REDIS_URL (and RELAY_NAME) in the environment; GET /api/health.
import http from 'node:http';
import { type ClientToServerEvents, rooms, type ServerToClientEvents, type SocketData } from '@shared/index';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';

type RelayData = SocketData & { peer: number };

const port = Number(process.env.PORT ?? 0);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const name = process.env.RELAY_NAME ?? 'relay';

const httpServer = http.createServer((req, res) => {
  if (req.url === '/api/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  res.writeHead(404).end();
});
const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, RelayData>(httpServer, {
  serveClient: false,
  maxHttpBufferSize: 64 * 1024,
});
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
const pub = redis.duplicate();
const sub = redis.duplicate();
// Its own channel prefix, so it can never hear (or be heard by) real servers on the same Redis.
io.adapter(createAdapter(pub, sub, { key: 'bench-relay' }));

io.use((socket, next) => {
  const userId = Number(socket.handshake.query.userId);
  const peer = Number(socket.handshake.query.peer);
  if (!(userId > 0) || !(peer > 0)) return next(new Error('userId and peer required'));
  socket.data.userId = userId;
  socket.data.peer = peer;
  socket.data.sessionId = 0;
  next();
});

let nextId = 0;
io.on('connection', (socket) => {
  void socket.join(rooms.user(socket.data.userId));
  socket.on('message:send', (payload, ack) => {
    nextId++;
    const message = {
      id: nextId,
      matchId: payload.matchId,
      senderId: socket.data.userId,
      content: payload.content,
      seq: nextId,
      clientId: payload.clientId,
      flagged: false,
      createdAt: new Date().toISOString(),
    };
    io.to([rooms.user(socket.data.userId), rooms.user(socket.data.peer)]).emit('message:new', message);
    if (typeof ack === 'function') ack({ ok: true, data: message });
  });
});

httpServer.listen(port, '127.0.0.1');

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    setTimeout(() => process.exit(1), 5_000).unref();
    io.close(() => {
      void Promise.allSettled([pub.quit(), sub.quit(), redis.quit()]).then(() => process.exit(0));
    });
  });
}
process.on('uncaughtException', (error) => {
  console.error(`${name}: ${error.stack ?? error}`);
  process.exit(1);
});
