const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);
const UNREACHABLE_MESSAGES = [
  /connection terminated/i,
  /is not currently accepting connections/i,
  /timeout exceeded when trying to connect/i,
  /connection is not established/i,
  /Client has encountered a connection error/i,
  /Cannot use a pool after calling end/i,
];

/** True when an error means "the database cannot be reached", as opposed to a bug in a query. */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (const candidate of [error, (error as { driverError?: unknown })?.driverError]) {
    if (!candidate || typeof candidate !== 'object') continue;
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      // SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, cannot connect now), 53300 (too many
      // connections), 3D000 (no such database)
      if (UNREACHABLE_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300' || code === '3D000')
        return true;
    }
    if (typeof message === 'string' && UNREACHABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}
