import type { DriverPrincipal, Principal } from './principal.js';

/** What the auth guard puts on a request it lets through. */
declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
    driver?: DriverPrincipal;
  }
}
