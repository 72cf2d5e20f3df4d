import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Put, Query, type Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiProperty, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { parseQueryList } from '../../common/validation/query-list.js';
import { Auth, CurrentPrincipal } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { DriverView } from '../drivers/dto/driver.dto.js';
import { REF_MAX } from './dto/record-fields.dto.js';
import { CreatedRecordsView, DeletedRecordsView, LogItemView, UpdatedRecordsView } from './dto/record-views.dto.js';
import type { RecordDefinition } from './record-definition.js';
import { MAX_QUERY_REFS, type LogsElement, type RecordsService } from './records.service.js';

export interface RecordsApi {
  def: RecordDefinition;
  /** Injection token of the RecordsService for this kind of record. */
  service: symbol;
  createItem: Type<unknown>;
  updateItem: Type<unknown>;
  logView: Type<unknown>;
}

const oneOrMany = (item: Type<unknown>, description: string) => ({
  description,
  schema: { oneOf: [{ $ref: getSchemaPath(item) }, { type: 'array', items: { $ref: getSchemaPath(item) }, minItems: 1 }] },
});

/** A repeated query parameter: `?refs=A&refs=B`. */
export const refsQuery = {
  type: 'array' as const,
  items: { type: 'string' as const, minLength: 1, maxLength: REF_MAX },
  minItems: 1,
  maxItems: MAX_QUERY_REFS,
};

const refsBody = {
  description: 'One ref, or an array of refs',
  schema: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }], example: ['REF-0001', 'REF-0002'] },
};

/**
 * The four routes of trips or appointments (interface: Endpoints), built from one definition so both
 * modules answer alike. The controller only translates HTTP; the rules live in RecordsService.
 */
export function recordsController({ def, service, createItem, updateItem, logView }: RecordsApi): Type<unknown> {
  const plural = `${def.noun}s`;
  const Title = def.noun === 'trip' ? 'Trip' : 'Appointment';

  class LogsData {
    @ApiProperty({ type: logView }) [def.noun]: unknown;
    @ApiProperty({ type: DriverView }) driver: DriverView;
    @ApiProperty({ type: [LogItemView], description: 'Newest first' }) logs: LogItemView[];
  }
  Object.defineProperty(LogsData, 'name', { value: `${Title}LogsData` });

  class LogsElementView {
    @ApiProperty() ref: string;
    @ApiProperty() found: boolean;
    @ApiProperty({ type: LogsData, nullable: true, description: 'null when found is false' }) data: LogsData | null;
  }
  Object.defineProperty(LogsElementView, 'name', { value: `${Title}LogsElement` });

  @ApiTags(plural)
  @Auth(def.ownerKind)
  @ApiErrors(...COMMON_ERRORS)
  @ApiExtraModels(createItem, updateItem)
  @Controller(`api/v1/${plural}`)
  class RecordsController {
    constructor(@Inject(service) readonly records: RecordsService) {}

    @Post()
    @ApiOperation({ summary: `Create ${plural}: one object or an array, all or nothing; drivers are created or updated` })
    @ApiBody(oneOrMany(createItem, `\`{driver, ${def.noun}}\`, or an array of them`))
    @ApiEnvelope(201, CreatedRecordsView)
    @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'INVALID_LAYOUT_REF', 'DUPLICATE_KEY')
    async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<Envelope<CreatedRecordsView>> {
      return ok(await this.records.create(principal, body));
    }

    @Put()
    @HttpCode(200)
    @ApiOperation({ summary: `Update ${plural} by ref: only the fields sent change; status moves as statuses.md says` })
    @ApiBody(oneOrMany(updateItem, `\`{ref, ${def.noun}}\`, or an array of them`))
    @ApiEnvelope(200, UpdatedRecordsView)
    @ApiErrors(
      ...BODY_ERRORS,
      'EMPTY_PAYLOAD',
      'BATCH_TOO_LARGE',
      'PROTECTED_FIELD',
      'INVALID_LAYOUT_REF',
      'REFS_NOT_FOUND',
      'INVALID_STATUS_TRANSITION',
    )
    async update(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<Envelope<UpdatedRecordsView>> {
      return ok(await this.records.update(principal, body));
    }

    @Delete()
    @HttpCode(200)
    @ApiOperation({ summary: `Cancel ${plural} by ref: status becomes DELETED (the record and its ref are kept)` })
    @ApiBody(refsBody)
    @ApiEnvelope(200, DeletedRecordsView)
    @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'REFS_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
    async remove(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<Envelope<DeletedRecordsView>> {
      return ok(await this.records.delete(principal, body));
    }

    @Get('logs')
    @ApiOperation({ summary: `Tracking history of ${plural}: each ref once, in request order; unknown refs found: false` })
    @ApiQuery({
      name: 'refs',
      required: true,
      description: `Repeat per ref: ?refs=A&refs=B (1 to ${MAX_QUERY_REFS})`,
      schema: refsQuery,
      style: 'form',
      explode: true,
    })
    @ApiEnvelope(200, LogsElementView, { isArray: true })
    @ApiErrors('VALIDATION_ERROR')
    async logs(@CurrentPrincipal() principal: Principal, @Query('refs') refs: unknown): Promise<Envelope<LogsElement[]>> {
      return ok(await this.records.logs(principal, parseQueryList(refs, 'refs', MAX_QUERY_REFS, REF_MAX)));
    }
  }
  Object.defineProperty(RecordsController, 'name', { value: `${Title}sController` });
  return RecordsController;
}
