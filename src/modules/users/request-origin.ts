import type { Request } from 'express';
import type { AppConfig } from '../../config/config.js';

/** Where the links the service writes start: PUBLIC_URL, or the origin the request reached (as TRUST_PROXY lets it say). */
export function publicOrigin(config: Pick<AppConfig, 'publicUrl'>, request: Request): string {
  return config.publicUrl ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}
