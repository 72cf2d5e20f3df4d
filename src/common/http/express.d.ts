import type { AppError } from '../errors/app-error.js';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    /** A body that could not be read; raised after authentication so auth errors come first. */
    bodyError?: AppError;
  }
}
