import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import { guideUrl } from '../../common/docs/guide.js';
import { layoutLanguageOf } from './render.js';

/** The request header that chooses the language of layout texts written in several (docs/layouts.md). */
export const ApiLayoutLanguage = () =>
  ApiHeader({
    name: 'Accept-Language',
    required: false,
    example: 'pt-BR',
    description:
      'The language layout texts written in several languages are drawn in: the best match of pt-BR, es and en (`pt`, `pt-PT` are pt-BR, `es-MX` es); ' +
      `without one of them, en, else the first the text gives of pt-BR and es. Texts written as one string are drawn as written. See [layouts](${guideUrl('layouts', 'texts-in-several-languages')}).`,
  });

/**
 * The layout language of the request (its `Accept-Language`), as a route parameter: pt-BR, es, en or null. A
 * decorator of its own rather than `@Headers()`, which the OpenAPI document would show as a required header.
 */
export const LayoutLanguage = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  layoutLanguageOf(context.switchToHttp().getRequest<Request>().headers['accept-language']),
);
