import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../../common/errors/app-error.js';
import { validatePlain } from '../../common/validation/validate.js';
import { LayoutDraftPreviewDto } from './dto/layout.dto.js';
import { checkLayoutRef, type LayoutBody, type LayoutSet, parseLayoutBody } from './layout-schema.js';

interface SentLayout {
  /** The path's set: LayoutSetGuard has checked it exists and is the caller's kind's. */
  set: LayoutSet;
  ref: unknown;
  body: unknown;
}

/** What a layout route sends: the path's set and layout_ref, and the body. */
export const SentLayout = createParamDecorator((_data: unknown, context: ExecutionContext): SentLayout => {
  const request = context.switchToHttp().getRequest<Request>();
  return { set: request.params.set as LayoutSet, ref: request.params.layout_ref, body: request.body };
});

/** `@SentLayout(PutLayoutPipe)`: the body of PUT /layouts/{set}/{layout_ref}, after the ref, by its set's element table. */
@Injectable()
export class PutLayoutPipe implements PipeTransform<SentLayout, LayoutBody> {
  transform({ set, ref, body }: SentLayout): LayoutBody {
    checkLayoutRef(ref);
    const parsed = parseLayoutBody(set, body);
    if (!parsed.value) throw AppError.validation(parsed.issues);
    return parsed.value;
  }
}

/** An unsaved layout to preview: the layout parsed as PUT parses it, the sample data, the ref it would have. */
export interface LayoutDraft {
  layout: LayoutBody;
  data: Record<string, unknown>;
  layout_ref: string | null;
}

/**
 * `@SentLayout(DraftLayoutPipe)`: the body of POST /layouts/{set}/preview, `{layout, data, layout_ref?}`, then
 * `layout` as PUT takes it, its problems at the paths PUT names them (`card_layout[2].path`).
 */
@Injectable()
export class DraftLayoutPipe implements PipeTransform<SentLayout, LayoutDraft> {
  transform({ set, body }: SentLayout): LayoutDraft {
    const sent = validatePlain(LayoutDraftPreviewDto, body ?? {});
    if (!sent.value) throw AppError.validation(sent.issues);
    const { layout, data, layout_ref } = sent.value;
    const parsed = parseLayoutBody(set, layout);
    if (!parsed.value) throw AppError.validation(parsed.issues);
    return { layout: parsed.value, data, layout_ref: layout_ref ?? null };
  }
}
