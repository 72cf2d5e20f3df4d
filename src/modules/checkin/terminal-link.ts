import type { TerminalCheckinRequestView } from './dto/checkin.dto.js';

/** How a terminal server answered an ask: its sockets' acknowledgements, or why there are none. */
export type TerminalAnswer = { kind: 'answered'; acks: unknown[] } | { kind: 'offline' } | { kind: 'timeout' } | { kind: 'shutdown' };

/** What the check-in module asks a terminal server, by event, and the payload each carries. */
export interface TerminalAsks {
  'checkin:request': TerminalCheckinRequestView;
}

/**
 * The check-in module's way to a terminal server: ask every socket of the terminal, on any instance, and
 * wait for their acknowledgements. The real-time layer (src/realtime) provides it; this module only asks.
 */
export abstract class TerminalLink {
  abstract ask<E extends keyof TerminalAsks>(
    terminalId: string,
    event: E,
    payload: TerminalAsks[E],
    timeoutMs: number,
  ): Promise<TerminalAnswer>;
}
