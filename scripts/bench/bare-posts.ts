import { Agent, request } from 'undici';

/** A round the bench asks for: POST each of `requests` to `url`, `concurrency` at once. */
export interface BarePosts {
  url: string;
  requests: { headers: Record<string, string>; body: string }[];
  concurrency: number;
}

/**
 * The floor of webhook delivery, as a process of its own as the service is (the receiver runs in the bench's): the
 * same requests to the same receiver from a bare undici client, as many at once as the service sends to one
 * webhook, over kept-alive connections, nothing else (no database, no signing). One process for every round of a
 * run, as the service is one: it warms up as the service does. Answers each round over IPC with how long its POSTs
 * took, in ms.
 */
let agent: Agent | null = null;
process.on('message', (message: BarePosts) => {
  void (async () => {
    agent ??= new Agent({ connections: message.concurrency, keepAliveTimeout: 10_000 });
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: message.concurrency }, async () => {
        while (next < message.requests.length) {
          const { headers, body } = message.requests[next++];
          const answer = await request(message.url, { method: 'POST', dispatcher: agent!, headers, body });
          await answer.body.dump();
        }
      }),
    );
    process.send!({ ms: performance.now() - started });
  })();
});
process.on('disconnect', () => void agent?.close().finally(() => process.exit(0)));
