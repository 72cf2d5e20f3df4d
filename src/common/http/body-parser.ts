import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../errors/app-error.js';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;

const JSON_TYPES = ['application/json', 'application/*+json'];

function hasBody(req: Request): boolean {
  const length = req.header('content-length');
  return req.header('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

function bodyError(type: string | undefined): AppError {
  switch (type) {
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${MAX_BODY_BYTES / 1024 / 1024} MB`);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 JSON, uncompressed or gzip/deflate');
    default:
      return new AppError('MALFORMED_JSON', 'The body is not valid JSON');
  }
}

/**
 * Reads JSON bodies (any JSON value: DELETE takes a bare string) up to 10 MB. Problems are parked on the
 * request instead of answered here, so an unauthenticated caller learns about its key before its body.
 */
export function jsonBodyParser(): RequestHandler {
  const parse = express.json({ limit: MAX_BODY_BYTES, strict: false, type: JSON_TYPES });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    if (!req.is(JSON_TYPES)) {
      req.bodyError = new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json');
      req.resume();
      return next();
    }
    parse(req, res, (error?: { type?: string }) => {
      if (error) {
        req.body = undefined;
        req.bodyError = bodyError(error.type);
      }
      next();
    });
  };
}
