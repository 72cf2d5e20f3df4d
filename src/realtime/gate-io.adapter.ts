import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { MessageMappingProperties } from '@nestjs/websockets';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Server as HttpServer } from 'node:http';
import type { Socket as TcpSocket } from 'node:net';
import type { Observable } from 'rxjs';
import type { Server, ServerOptions, Socket } from 'socket.io';
import type { Foreground } from '../common/scheduling/foreground.js';
import type { CorsOrigins } from '../config/config.js';

/**
 * Socket.IO server of the service: with REDIS_URL, the Redis adapter shares rooms, broadcasts and
 * acknowledgements between instances. The default namespace is closed: only the gateways' namespaces exist.
 *
 * Message handlers are plain listeners: Nest's own binding builds an RxJS pipeline per socket and per
 * handler (fromEvent, mergeMap, takeUntil a shared disconnect stream), about 11 KB of heap a socket for as
 * long as it is connected, twice what a bare Socket.IO server spends on one.
 */
export class GateIoAdapter extends IoAdapter {
  private readonly clients: Redis[] = [];

  constructor(
    app: INestApplicationContext | HttpServer,
    private readonly redis: { url: string | null; prefix: string },
    private readonly corsOrigins: CorsOrigins = null,
    private readonly foreground?: Foreground,
  ) {
    super(app);
  }

  override createIOServer(port: number, options?: Partial<ServerOptions>): Server {
    // CORS_ORIGINS, as on HTTP; unset: no CORS headers (only the long-polling transport needs them; WebSocket has none).
    const cors = this.corsOrigins ? { origin: this.corsOrigins, methods: ['GET', 'POST'] } : undefined;
    const server: Server = super.createIOServer(port, { ...options, cors, serveClient: false } as ServerOptions);
    // Long-polling answers are HTTP answers too: typed as they say, as every answer of the service.
    server.engine.on('headers', (headers: Record<string, string>) => {
      headers['X-Content-Type-Options'] = 'nosniff';
    });
    server.engine.on('connection', gatherWrites);
    if (this.redis.url) {
      const pub = new Redis(this.redis.url, { maxRetriesPerRequest: 1 });
      const sub = pub.duplicate();
      this.clients.push(pub, sub);
      server.adapter(createAdapter(pub, sub, { key: `${this.redis.prefix}:socket.io` }));
    }
    server
      .of('/')
      .use((_socket, next) => next(Object.assign(new Error('Connect to /terminal, /driver or /panel'), { data: { code: 'NOT_FOUND' } })));
    return server;
  }

  /**
   * Behaves as Nest's binding does: the handler's result (a value, promise or observable, through `transform`)
   * answers the acknowledgement unless it is null or undefined; `{event, data}` is emitted instead; a
   * handler that throws is logged and leaves the acknowledgement unanswered. Each message runs on its own,
   * and what a socket's handlers hold ends with the socket. A message is foreground work until its handler is done.
   */
  override bindMessageHandlers(
    socket: Socket,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observable<unknown>,
  ): void {
    for (const { message, callback, isAckHandledManually } of handlers) {
      socket.on(message, (...args: unknown[]) => {
        // As RxJS fromEvent hands them over: several arguments as an array, one (or none) as itself.
        const { data, ack } = this.mapPayload(args.length > 1 ? args : args[0]) as { data: unknown; ack?: (response: unknown) => void };
        const reply = (response: unknown) => {
          if (response === null || response === undefined) return;
          const { event, data: eventData } = response as { event?: string; data?: unknown };
          if (event) socket.emit(event, eventData);
          else if (!isAckHandledManually && typeof ack === 'function') ack(response);
        };
        const done = this.foreground?.begin();
        try {
          transform(callback(data, ack)).subscribe({
            next: reply,
            error: (error: unknown) => {
              done?.();
              this.logger.error(error);
            },
            complete: done,
          });
        } catch (error) {
          done?.();
          this.logger.error(error);
        }
      });
    }
  }

  override async close(server: Server): Promise<void> {
    await super.close(server);
    await Promise.all(this.clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
  }
}

/**
 * A connection's packets of one turn go to its transport together, and over WebSocket reach the kernel in one write.
 *
 * Engine.IO writes a connection's first packet at once and holds the next ones until that write's callback, which
 * comes only once every promise continuation of the turn has run: a driver's `ticket.created`, pushed right after the
 * `appointment.status` of the same commit, waited behind everything that commit set off (the acknowledgement, the
 * account events' announcements). Measured in `npm run bench -- --only=checkin`: 0.2 to 0.4 ms at the median one check-in
 * after the other, 12 to 45 ms for 100 drivers at once (docs/benchmarks.md). Here a flush waits for the end of the
 * current microtask instead, so the packets emitted meanwhile go in one batch, and a WebSocket's TCP socket is corked
 * around it, so its frames leave in one write.
 */
export function gatherWrites(connection: Socket['conn']): void {
  const engine = connection as unknown as { flush: () => void; transport: { socket?: { _socket?: TcpSocket } } };
  const flush = engine.flush.bind(connection);
  let due = false;
  engine.flush = () => {
    if (due) return;
    due = true;
    queueMicrotask(() => {
      due = false;
      // The `ws` WebSocket of the websocket transport; long polling has none, and writes its answer in one piece anyway.
      const tcp = engine.transport.socket?._socket;
      tcp?.cork();
      try {
        flush();
      } finally {
        tcp?.uncork();
      }
    });
  };
}
