import { REF_MAX } from '../../common/validation/validators.js';
import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiProperty, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { guideUrl } from '../../common/docs/guide.js';
import type { ErrorCode } from '../../common/errors/error-codes.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { BatchPipe, type Batch } from '../../common/batch/batch.pipe.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { parseQueryList } from '../../common/validation/query-list.js';
import { Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { DriverView } from '../drivers/dto/driver.dto.js';
import { CreatedRecordsView, DeletedRecordsView, LogItemView, UpdatedRecordsView } from './dto/record-views.dto.js';
import type { RecordDefinition } from './record-definition.js';
import { checkUpdates, createItems, deleteRefs, distinctRefs, type CreateItem, type UpdateItem, updateItems } from './record-input.js';
import { encodeCursor, listQueryDto, type ListQuery } from './record-listing.js';
import { MAX_QUERY_REFS, type LogsElement, type RecordsPage, type RecordsService } from './records.service.js';

export interface RecordsApi {
  def: RecordDefinition;
  /** The module's RecordsService subclass, injected by its class. */
  service: Type<RecordsService>;
  createItem: Type<object>;
  updateItem: Type<object>;
  logView: Type<unknown>;
  examples: RecordExamples;
  /** Codes the kind's guard adds to creates and updates (appointments: capacity). */
  guardErrors?: ErrorCode[];
}

/** Examples of one kind of record for the OpenAPI document: two of each so batches show too. */
export interface RecordExamples {
  /** Two create items, `{driver, trip}` or `{driver, appointment}`. */
  create: [object, object];
  /** Two update items, `{ref, trip}` or `{ref, appointment}`. */
  update: [object, object];
  refs: [string, string];
  ids: [string, string];
  /** The first record as the logs query shows it, and its log entries (newest first). */
  logged: object;
  logs: { event: string; message: string; created_at: string }[];
}

const oneOrMany = (item: Type<unknown>) => ({
  oneOf: [{ $ref: getSchemaPath(item) }, { type: 'array', items: { $ref: getSchemaPath(item) }, minItems: 1 }],
});

/** A repeated query parameter: `?refs=A&refs=B`. */
export const refsQuery = {
  type: 'array' as const,
  items: { type: 'string' as const, minLength: 1, maxLength: REF_MAX },
  minItems: 1,
  maxItems: MAX_QUERY_REFS,
};

const refsBody = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] };

/**
 * The four routes of trips or appointments (interface: Endpoints), built from one definition so both
 * modules answer alike. The controller only translates HTTP; the rules live in RecordsService.
 */
export function recordsController({
  def,
  service,
  createItem,
  updateItem,
  logView,
  examples,
  guardErrors = [],
}: RecordsApi): Type<unknown> {
  const plural = `${def.noun}s`;
  const Title = def.label;
  const CreateBody = BatchPipe<CreateItem>(createItems(createItem));
  const UpdateBody = BatchPipe(updateItems(def, updateItem), checkUpdates);
  const DeleteBody = BatchPipe(deleteRefs, distinctRefs);

  class ItemView {
    @ApiProperty({ type: logView }) [def.noun]: unknown;
    @ApiProperty({ type: DriverView }) driver: DriverView;
  }
  Object.defineProperty(ItemView, 'name', { value: `${Title}ItemView` });

  class LogsData extends ItemView {
    @ApiProperty({ type: [LogItemView], description: 'Newest first' }) logs: LogItemView[];
  }
  Object.defineProperty(LogsData, 'name', { value: `${Title}LogsData` });

  class PageView {
    @ApiProperty({ type: [ItemView] }) items: ItemView[];
    @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last page' })
    next_cursor: string | null;
  }
  Object.defineProperty(PageView, 'name', { value: `${Title}sPageView` });

  const ListQueryDto = listQueryDto(def);

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
    constructor(readonly records: RecordsService) {}

    @Post()
    @ApiOperation({ summary: `Create ${plural}: one object or an array, all or nothing; drivers are created or updated` })
    @ApiJsonBody(`\`{driver, ${def.noun}}\`, or an array of them`, oneOrMany(createItem), {
      one: { summary: `One ${def.noun}`, value: examples.create[0] },
      batch: { summary: `Several ${plural}`, value: examples.create },
    })
    @ApiEnvelope(201, CreatedRecordsView, { created_refs: examples.refs, created_ids: examples.ids, status: 'created' })
    @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'INVALID_LAYOUT_REF', 'DUPLICATE_KEY', ...guardErrors)
    async create(
      @CurrentPartner() principal: PartnerPrincipal,
      @Body(CreateBody) batch: Batch<CreateItem>,
    ): Promise<Envelope<CreatedRecordsView>> {
      return ok(await this.records.create(principal.accountId, batch));
    }

    @Put()
    @HttpCode(200)
    @ApiOperation({
      summary: `Update ${plural} by ref: only the fields sent change; status moves as the status table allows`,
      description: `The moves each status allows: [statuses](${guideUrl('statuses')}).`,
    })
    @ApiJsonBody(`\`{ref, ${def.noun}}\`, or an array of them`, oneOrMany(updateItem), {
      one: { summary: `One ${def.noun}`, value: examples.update[0] },
      batch: { summary: `Several ${plural}`, value: examples.update },
    })
    @ApiEnvelope(200, UpdatedRecordsView, { updated_refs: examples.refs, status: 'updated' })
    @ApiErrors(
      ...BODY_ERRORS,
      'EMPTY_PAYLOAD',
      'BATCH_TOO_LARGE',
      'PROTECTED_FIELD',
      'INVALID_LAYOUT_REF',
      'REFS_NOT_FOUND',
      'INVALID_STATUS_TRANSITION',
      ...guardErrors,
    )
    async update(
      @CurrentPartner() principal: PartnerPrincipal,
      @Body(UpdateBody) batch: Batch<UpdateItem>,
    ): Promise<Envelope<UpdatedRecordsView>> {
      return ok(await this.records.update(principal, batch));
    }

    @Delete()
    @HttpCode(200)
    @ApiOperation({ summary: `Cancel ${plural} by ref: status becomes DELETED (the record and its ref are kept)` })
    @ApiJsonBody('One ref, or an array of refs', refsBody, {
      one: { summary: `One ${def.noun}`, value: examples.refs[0] },
      batch: { summary: `Several ${plural}`, value: examples.refs },
    })
    @ApiEnvelope(200, DeletedRecordsView, { deleted_refs: examples.refs, status: 'deleted' })
    @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'REFS_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
    async remove(@CurrentPartner() principal: PartnerPrincipal, @Body(DeleteBody) batch: Batch<string>): Promise<Envelope<DeletedRecordsView>> {
      return ok(await this.records.delete(principal.accountId, batch));
    }

    @Get()
    @ApiOperation({
      summary: `List ${plural}: filters ANDed, ordered by window_start (none last) then ref, a page at a time`,
      description: `Keyset pages: pass each page's next_cursor as cursor until it is null. The filters and the order: [listing](${guideUrl('listing')}).`,
    })
    @ApiEnvelope(200, PageView, {
      items: [{ [def.noun]: examples.logged, driver: EXAMPLE.driverView }],
      next_cursor: encodeCursor({ key: '2026-11-22T08:00:00.000000Z', ref: examples.refs[0] }),
    })
    @ApiErrors('VALIDATION_ERROR')
    async list(@CurrentPartner() principal: PartnerPrincipal, @Query() query: ListQuery): Promise<Envelope<RecordsPage>> {
      return ok(await this.records.list(principal.accountId, query));
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
    @ApiEnvelope(
      200,
      LogsElementView,
      [
        { ref: examples.refs[0], found: true, data: { [def.noun]: examples.logged, driver: EXAMPLE.driverView, logs: examples.logs } },
        { ref: 'UNKNOWN-REF', found: false, data: null },
      ],
      { isArray: true },
    )
    @ApiErrors('VALIDATION_ERROR')
    async logs(@CurrentPartner() principal: PartnerPrincipal, @Query('refs') refs: unknown): Promise<Envelope<LogsElement[]>> {
      return ok(await this.records.logs(principal, parseQueryList(refs, 'refs', MAX_QUERY_REFS, REF_MAX)));
    }
  }
  // Nest injects by the constructor's parameter types: this kind's service.
  Reflect.defineMetadata('design:paramtypes', [service], RecordsController);
  // The global DTO pipe validates a query by its parameter's type: this kind's query class.
  Reflect.defineMetadata('design:paramtypes', [Object, ListQueryDto], RecordsController.prototype, 'list');
  Object.defineProperty(RecordsController, 'name', { value: `${Title}sController` });
  return RecordsController;
}
