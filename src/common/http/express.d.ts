import type { AppError } from '../errors/app-error.js';
import type { DriverPrincipal, Principal } from '../../modules/auth/principal.js';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    /** A body that could not be read; raised after authentication so auth errors come first. */
    bodyError?: AppError;
    principal?: Principal;
    driver?: DriverPrincipal;
  }
}
