import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket as TcpSocket } from 'node:net';
import type { Server } from 'socket.io';
import { io as connect, type Socket as Client } from 'socket.io-client';
import { GateIoAdapter } from '../../src/realtime/gate-io.adapter.js';

/** The service's Socket.IO server on a port of its own, with a namespace whose `go` emits `a` and `b`, then answers. */
async function serve(): Promise<{ http: HttpServer; server: Server; adapter: GateIoAdapter; url: string }> {
  const http = createServer();
  const adapter = new GateIoAdapter(http, { url: null, prefix: '' });
  const server = adapter.createIOServer(0, {});
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, server, adapter, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

let open: Awaited<ReturnType<typeof serve>> | null = null;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  if (open) {
    await open.adapter.close(open.server);
    open.http.close();
    open = null;
  }
});

describe('a socket’s packets of one turn', () => {
  it('go to the transport in one flush and to the kernel in one write, in the order emitted', async () => {
    open = await serve();
    const flushes: string[][] = [];
    let writes = 0;
    open.server.of('/t').on('connection', (socket) => {
      socket.conn.on('flush', (buffer: { data?: unknown }[]) => flushes.push(buffer.map((packet) => String(packet.data))));
      // The connection's TCP socket: every write that reaches the kernel goes through one of these two.
      const tcp = socket.request.socket as TcpSocket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
      for (const method of ['_write', '_writev'] as const) {
        const original = tcp[method].bind(tcp);
        tcp[method] = (...args: unknown[]) => (writes++, original(...args));
      }
      socket.on('go', (ack: (answer: string) => void) => {
        [flushes.length, writes] = [0, 0];
        socket.emit('a', 1);
        socket.emit('b', 2);
        ack('done');
      });
    });
    const client = connect(`${open.url}/t`, { transports: ['websocket'], reconnection: false, forceNew: true });
    clients.push(client);
    const received: string[] = [];
    client.on('a', () => received.push('a'));
    client.on('b', () => received.push('b'));
    await new Promise((resolve) => client.once('connect', () => resolve(undefined)));

    expect(await client.timeout(5000).emitWithAck('go')).toBe('done');
    received.push('ack');

    expect(received).toEqual(['a', 'b', 'ack']);
    expect(flushes).toEqual([['2/t,["a",1]', '2/t,["b",2]', '3/t,0["done"]']]);
    expect(writes).toBe(1);
  });

  it('emitted in turns of their own, each goes when its turn ends', async () => {
    open = await serve();
    const flushes: number[] = [];
    open.server.of('/t').on('connection', (socket) => {
      socket.conn.on('flush', (buffer: unknown[]) => flushes.push(buffer.length));
      socket.on('go', () => {
        flushes.length = 0;
        socket.emit('a', 1);
        setTimeout(() => socket.emit('b', 2), 20);
      });
    });
    const client = connect(`${open.url}/t`, { transports: ['websocket'], reconnection: false, forceNew: true });
    clients.push(client);
    await new Promise((resolve) => client.once('connect', () => resolve(undefined)));
    const both = Promise.all(['a', 'b'].map((event) => new Promise((resolve) => client.once(event, resolve))));
    client.emit('go');
    expect(await both).toEqual([1, 2]);
    expect(flushes).toEqual([1, 1]);
  });
});
