import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { type Batch, BatchPipe } from '../../common/batch/batch.pipe.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import type { QueryList } from '../../common/validation/query-list.pipe.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CreatedRecordsView, DeletedRecordsView, UpdatedRecordsView } from '../records/dto/record-views.dto.js';
import { checkUpdates, type CreateItem, createItems, type UpdateItem, updateItems } from '../records/record-input.js';
import { encodeCursor } from '../records/record-listing.js';
import { CREATE_ERRORS, DELETE_ERRORS, DeleteRefsBody, oneOrMany, REFS_BODY, REFS_QUERY, UPDATE_ERRORS } from '../records/record-routes.js';
import type { LogsElement, RecordsPage } from '../records/records.service.js';
import { CreateTripItemDto, ListTripsQuery, TRIP_EXAMPLES, TripLogsElement, TripsPageView, UpdateTripItemDto } from './dto/trip.dto.js';
import { TRIPS } from './trips.definition.js';
import { TripsService } from './trips.service.js';

const CreateBody = BatchPipe<CreateItem>(createItems(CreateTripItemDto));
const UpdateBody = BatchPipe(updateItems(TRIPS, UpdateTripItemDto), checkUpdates);

/** A carrier's trips (interface: Endpoints); the rules live in the records engine (TripsService). */
@ApiTags('trips')
@Auth('carrier')
@AccessTo('trips')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateTripItemDto, UpdateTripItemDto)
@Controller('api/v1/trips')
export class TripsController {
  constructor(private readonly trips: TripsService) {}

  @Post()
  @ApiOperation({ summary: 'Create trips: one object or an array, all or nothing; drivers are created or updated' })
  @ApiJsonBody('`{driver, trip}`, or an array of them', oneOrMany(CreateTripItemDto), {
    one: { summary: 'One trip', value: TRIP_EXAMPLES.create[0] },
    batch: { summary: 'Several trips', value: TRIP_EXAMPLES.create },
  })
  @ApiEnvelope(201, CreatedRecordsView, { created_refs: TRIP_EXAMPLES.refs, created_ids: TRIP_EXAMPLES.ids, status: 'created' })
  @ApiErrors(...CREATE_ERRORS)
  async create(
    @CurrentPartner() carrier: PartnerPrincipal,
    @Body(CreateBody) batch: Batch<CreateItem>,
  ): Promise<Envelope<CreatedRecordsView>> {
    return ok(await this.trips.create(carrier.accountId, batch));
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update trips by ref: only the fields sent change; status moves as the status table allows',
    description: `The moves each status allows: [statuses](${guideUrl('statuses')}).`,
  })
  @ApiJsonBody('`{ref, trip}`, or an array of them', oneOrMany(UpdateTripItemDto), {
    one: { summary: 'One trip', value: TRIP_EXAMPLES.update[0] },
    batch: { summary: 'Several trips', value: TRIP_EXAMPLES.update },
  })
  @ApiEnvelope(200, UpdatedRecordsView, { updated_refs: TRIP_EXAMPLES.refs, status: 'updated' })
  @ApiErrors(...UPDATE_ERRORS)
  async update(
    @CurrentPartner() carrier: PartnerPrincipal,
    @Body(UpdateBody) batch: Batch<UpdateItem>,
  ): Promise<Envelope<UpdatedRecordsView>> {
    return ok(await this.trips.update(carrier, batch));
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel trips by ref: status becomes DELETED (the record and its ref are kept)' })
  @ApiJsonBody('One ref, or an array of refs', REFS_BODY, {
    one: { summary: 'One trip', value: TRIP_EXAMPLES.refs[0] },
    batch: { summary: 'Several trips', value: TRIP_EXAMPLES.refs },
  })
  @ApiEnvelope(200, DeletedRecordsView, { deleted_refs: TRIP_EXAMPLES.refs, status: 'deleted' })
  @ApiErrors(...DELETE_ERRORS)
  async remove(
    @CurrentPartner() carrier: PartnerPrincipal,
    @Body(DeleteRefsBody) batch: Batch<string>,
  ): Promise<Envelope<DeletedRecordsView>> {
    return ok(await this.trips.delete(carrier.accountId, batch));
  }

  @Get()
  @ApiOperation({
    summary: 'List trips: filters ANDed, ordered by window_start (none last) then ref, a page at a time',
    description: `Keyset pages: pass each page's next_cursor as cursor until it is null. The filters and the order: [listing](${guideUrl('listing')}).`,
  })
  @ApiEnvelope(200, TripsPageView, {
    items: [{ trip: TRIP_EXAMPLES.logged, driver: EXAMPLE.driverView }],
    next_cursor: encodeCursor({ key: '2026-11-22T08:00:00.000000Z', ref: TRIP_EXAMPLES.refs[0] }),
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentPartner() carrier: PartnerPrincipal, @Query() query: ListTripsQuery): Promise<Envelope<RecordsPage>> {
    return ok(await this.trips.list(carrier.accountId, query));
  }

  @Get('logs')
  @ApiOperation({ summary: 'Tracking history of trips: each ref once, in request order; unknown refs found: false' })
  @ApiQuery(REFS_QUERY.describe('refs'))
  @ApiEnvelope(
    200,
    TripLogsElement,
    [
      {
        ref: TRIP_EXAMPLES.refs[0],
        found: true,
        data: { trip: TRIP_EXAMPLES.logged, driver: EXAMPLE.driverView, logs: TRIP_EXAMPLES.logs },
      },
      { ref: 'UNKNOWN-REF', found: false, data: null },
    ],
    { isArray: true },
  )
  @ApiErrors('VALIDATION_ERROR')
  async logs(@CurrentPartner() carrier: PartnerPrincipal, @Query('refs', REFS_QUERY) refs: QueryList): Promise<Envelope<LogsElement[]>> {
    return ok(await this.trips.logs(carrier, refs));
  }
}
