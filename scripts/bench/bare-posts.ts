import { Agent, request } from 'undici';

/** What the bench asks: POST each of `requests` to `url`, `concurrency` at once, after the first `warmUp` of them once. */
export interface BarePosts {
  url: string;
  requests: { headers: Record<string, string>; body: string }[];
  concurrency: number;
  warmUp: number;
}

/**
 * The floor of webhook delivery, as a process of its own as the service is (the receiver runs in the bench's): the
 * same requests to the same receiver from a bare undici client, as many at once as the service sends to one
 * webhook, over kept-alive connections, nothing else (no database, no signing). Reports over IPC how long the
 * timed POSTs took, in ms.
 */
process.once('message', (message: BarePosts) => {
  void (async () => {
    const agent = new Agent({ connections: message.concurrency, keepAliveTimeout: 10_000 });
    const run = async (requests: BarePosts['requests']) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: message.concurrency }, async () => {
          while (next < requests.length) {
            const { headers, body } = requests[next++];
            const answer = await request(message.url, { method: 'POST', dispatcher: agent, headers, body });
            await answer.body.dump();
          }
        }),
      );
    };
    await run(message.requests.slice(0, message.warmUp));
    const started = performance.now();
    await run(message.requests);
    const ms = performance.now() - started;
    await agent.close();
    process.send!({ ms }, () => process.exit(0));
  })();
});
