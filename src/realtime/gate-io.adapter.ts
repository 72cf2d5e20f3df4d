import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';
import type { CorsOrigins } from '../config/config.js';

/**
 * Socket.IO server of the service: with REDIS_URL, the Redis adapter shares rooms, broadcasts and
 * acknowledgements between instances. The default namespace is closed: only /terminal and /driver exist.
 */
export class GateIoAdapter extends IoAdapter {
  private readonly clients: Redis[] = [];

  constructor(
    app: INestApplicationContext,
    private readonly redis: { url: string | null; prefix: string },
    private readonly corsOrigins: CorsOrigins = null,
  ) {
    super(app);
  }

  override createIOServer(port: number, options?: Partial<ServerOptions>): Server {
    // CORS_ORIGINS, as on HTTP; unset: no CORS headers (only the long-polling transport needs them; WebSocket has none).
    const cors = this.corsOrigins ? { origin: this.corsOrigins, methods: ['GET', 'POST'] } : undefined;
    const server: Server = super.createIOServer(port, { ...options, cors, serveClient: false } as ServerOptions);
    if (this.redis.url) {
      const pub = new Redis(this.redis.url, { maxRetriesPerRequest: 1 });
      const sub = pub.duplicate();
      this.clients.push(pub, sub);
      server.adapter(createAdapter(pub, sub, { key: `${this.redis.prefix}:socket.io` }));
    }
    server
      .of('/')
      .use((_socket, next) => next(Object.assign(new Error('Connect to /terminal or /driver'), { data: { code: 'NOT_FOUND' } })));
    return server;
  }

  override async close(server: Server): Promise<void> {
    await super.close(server);
    await Promise.all(this.clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
  }
}
