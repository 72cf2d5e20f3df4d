import type { Logger } from 'pino';
import { toAppError } from '../common/errors/all-exceptions.filter.js';
import type { AppError } from '../common/errors/app-error.js';
import type { AckEnvelope } from './socket-types.js';

export type { AckEnvelope };

/** An error as the acknowledgement carries it: the HTTP envelope's. */
export function refusal(error: AppError): AckEnvelope<never> {
  return { success: false, error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}

/** Runs a socket handler and answers its ack in the HTTP envelope, so both transports speak alike. */
export async function answer<T>(logger: Logger, context: Record<string, unknown>, run: () => Promise<T>): Promise<AckEnvelope<T>> {
  try {
    return { success: true, data: await run() };
  } catch (exception) {
    const error = toAppError(exception);
    if (!error) {
      logger.error({ err: exception, ...context }, 'socket handler failed');
      return { success: false, error: { code: 'INTERNAL_ERROR', message: 'Internal error' } };
    }
    return refusal(error);
  }
}
