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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'gate_' });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }
}
