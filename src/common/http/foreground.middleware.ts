import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Foreground } from '../scheduling/foreground.js';

/** Each request is foreground work from its arrival until its response is done or its connection is gone. */
export function foregroundRequests(foreground: Foreground): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.once('close', foreground.begin());
    next();
  };
}
