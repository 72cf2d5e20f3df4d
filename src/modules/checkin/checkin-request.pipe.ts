import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../../common/errors/app-error.js';
import { validatePlain } from '../../common/validation/validate.js';
import { CheckinBodyDto, CheckinRequestDto } from './dto/checkin.dto.js';

interface SentCheckin {
  body: unknown;
  id: unknown;
}

/** What POST /api/v1/driver/appointments/{id}/check-in sends: its body and the path's appointment id. */
export const SentCheckin = createParamDecorator((_data: unknown, context: ExecutionContext): SentCheckin => {
  const request = context.switchToHttp().getRequest<Request>();
  return { body: request.body, id: request.params.id };
});

/**
 * `@SentCheckin(CheckinRequestPipe)`: the REST check-in as the socket's `checkin:request` takes it. The body is
 * validated as sent (an array or an unknown property is refused; none is `{}`), then joined with the path's id,
 * which is checked by the same rule as the socket's `appointment_id` (same path and message).
 */
@Injectable()
export class CheckinRequestPipe implements PipeTransform<SentCheckin, CheckinRequestDto> {
  transform({ body, id }: SentCheckin): CheckinRequestDto {
    const sent = validatePlain(CheckinBodyDto, body ?? {});
    if (!sent.value) throw AppError.validation(sent.issues);
    const request = validatePlain(CheckinRequestDto, { appointment_id: id, checkin_id: sent.value.checkin_id });
    if (!request.value) throw AppError.validation(request.issues);
    return request.value;
  }
}
