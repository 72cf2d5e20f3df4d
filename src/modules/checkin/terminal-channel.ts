import { Injectable } from '@nestjs/common';
import type { Namespace } from 'socket.io';

export type TerminalAnswer = { kind: 'answered'; acks: unknown[] } | { kind: 'offline' } | { kind: 'timeout' };

export const terminalRoom = (terminalId: string) => `terminal:${terminalId}`;
export const driverRoom = (driverId: string) => `driver:${driverId}`;

/**
 * Asks a terminal server something and waits for its acknowledgement. Every socket of the terminal, on
 * any instance (through the Redis adapter), gets the request; the first useful answer counts.
 */
@Injectable()
export class TerminalChannel {
  private namespace: Namespace | null = null;

  attach(namespace: Namespace): void {
    this.namespace = namespace;
  }

  async ask(terminalId: string, event: string, payload: unknown, timeoutMs: number): Promise<TerminalAnswer> {
    if (!this.namespace) return { kind: 'offline' };
    try {
      const acks: unknown[] = await this.namespace.to(terminalRoom(terminalId)).timeout(timeoutMs).emitWithAck(event, payload);
      return acks.length === 0 ? { kind: 'offline' } : { kind: 'answered', acks };
    } catch {
      return { kind: 'timeout' };
    }
  }
}
