import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type TerminalAnswer, type TerminalAsks, TerminalLink } from '../modules/checkin/terminal-link.js';
import { terminalRoom } from './rooms.js';
import type { GateNamespace } from './socket-events.js';

interface PendingAsk {
  timers: NodeJS.Timeout[];
  settle(answer: TerminalAnswer): void;
}

/**
 * Runs `emit` and returns the timers it armed. Socket.IO arms its own timers for a broadcast with
 * acknowledgements (the operator's, and the Redis adapter's) and hands back no way to clear them; kept,
 * they would hold a closing process open for up to CHECKIN_TIMEOUT_MS.
 */
function armedTimers(emit: () => void): NodeJS.Timeout[] {
  const timers: NodeJS.Timeout[] = [];
  const original = globalThis.setTimeout;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    const timer = original(...args);
    timers.push(timer);
    return timer;
  }) as typeof setTimeout;
  try {
    emit();
  } finally {
    globalThis.setTimeout = original;
  }
  return timers;
}

/**
 * Asks a terminal server something and waits for its acknowledgement. Every socket of the terminal, on
 * any instance (through the Redis adapter), gets the request; the first useful answer counts. On shutdown
 * the asks still waiting end at once as `shutdown`, their timers cleared.
 */
@Injectable()
export class TerminalChannel extends TerminalLink implements OnModuleDestroy {
  private namespace: GateNamespace<'/terminal'> | null = null;
  private readonly pending = new Set<PendingAsk>();

  attach(namespace: GateNamespace<'/terminal'>): void {
    this.namespace = namespace;
  }

  ask(terminalId: string, event: keyof TerminalAsks, payload: TerminalAsks[typeof event], timeoutMs: number): Promise<TerminalAnswer> {
    const namespace = this.namespace;
    if (!namespace) return Promise.resolve({ kind: 'offline' });
    return new Promise<TerminalAnswer>((resolve) => {
      const ask: PendingAsk = {
        timers: [],
        settle: (answer) => {
          if (!this.pending.delete(ask)) return;
          ask.timers.forEach(clearTimeout);
          resolve(answer);
        },
      };
      this.pending.add(ask);
      ask.timers = armedTimers(() =>
        namespace
          .to(terminalRoom(terminalId))
          .timeout(timeoutMs)
          .emit(event, payload, (error, acks) => {
            if (error) ask.settle({ kind: 'timeout' });
            else ask.settle(acks.length === 0 ? { kind: 'offline' } : { kind: 'answered', acks });
          }),
      );
    });
  }

  onModuleDestroy(): void {
    for (const ask of [...this.pending]) ask.settle({ kind: 'shutdown' });
  }
}
