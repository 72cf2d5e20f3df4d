/** How a terminal server answered an ask: its sockets' acknowledgements, or why there are none. */
export type TerminalAnswer = { kind: 'answered'; acks: unknown[] } | { kind: 'offline' } | { kind: 'timeout' } | { kind: 'shutdown' };

/**
 * The check-in module's way to a terminal server: ask every socket of the terminal, on any instance, and
 * wait for their acknowledgements. The real-time layer (src/realtime) provides it; this module only asks.
 */
export abstract class TerminalLink {
  abstract ask(terminalId: string, event: string, payload: unknown, timeoutMs: number): Promise<TerminalAnswer>;
}
