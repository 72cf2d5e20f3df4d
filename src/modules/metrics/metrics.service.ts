import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** One registry per app instance (tests run several apps in one process). */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'gate_http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly duration = new Histogram({
    name: 'gate_http_request_duration_seconds',
    help: 'HTTP request duration, by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Check-ins by how they ended (accepted, rejected, timeout, offline, failed, refused) and who started them. */
  readonly checkins = new Counter({
    name: 'gate_checkins_total',
    help: 'Check-in handshakes, by outcome and source',
    labelNames: ['outcome', 'source'] as const,
    registers: [this.registry],
  });

  readonly checkinDuration = new Histogram({
    name: 'gate_checkin_duration_seconds',
    help: 'Check-in handshake duration, from the request to the committed outcome',
    labelNames: ['source'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly sockets = new Gauge({
    name: 'gate_socket_connections',
    help: 'Connected Socket.IO clients on this instance, by namespace',
    labelNames: ['namespace'] as const,
    registers: [this.registry],
  });

  /** Webhook delivery attempts by how they ended: delivered, retrying (failed, another attempt comes) or failed (the last). */
  readonly webhookAttempts = new Counter({
    name: 'gate_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retrying, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookLatency = new Histogram({
    name: 'gate_webhook_delivery_latency_seconds',
    help: "Time from an event's change to its webhook delivery (2xx), retries included",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600],
    registers: [this.registry],
  });

  /** Password hashes computed (hash: a new password; verify: a sign-in's check, an unknown email's against a dummy). */
  readonly passwordHashes = new Counter({
    name: 'gate_password_hashes_total',
    help: 'Password hashes computed, by operation (hash, verify)',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'gate_' });
  }

  /**
   * The webhook queue's gauges, read at scrape time from the database by `read` (shared by every instance, so
   * each reports the same numbers). A failed read leaves the previous values.
   */
  webhookQueue(read: () => Promise<{ depth: number; oldest_seconds: number }>): void {
    let last: Promise<{ depth: number; oldest_seconds: number } | null> | null = null;
    // Both gauges from one query per scrape.
    const once = () =>
      (last ??= read()
        .catch(() => null)
        .finally(() => setImmediate(() => (last = null))));
    new Gauge({
      name: 'gate_webhook_queue_depth',
      help: 'Webhook deliveries waiting to be sent (due or scheduled for a retry)',
      registers: [this.registry],
      async collect() {
        const stats = await once();
        if (stats) this.set(stats.depth);
      },
    });
    new Gauge({
      name: 'gate_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery waiting to be sent',
      registers: [this.registry],
      async collect() {
        const stats = await once();
        if (stats) this.set(stats.oldest_seconds);
      },
    });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }
}
