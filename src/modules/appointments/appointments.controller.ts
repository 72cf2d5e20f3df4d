import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { type Batch, BatchPipe } from '../../common/batch/batch.pipe.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import type { ErrorCode } from '../../common/errors/error-codes.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import type { QueryList } from '../../common/validation/query-list.pipe.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CreatedRecordsView, DeletedRecordsView, UpdatedRecordsView } from '../records/dto/record-views.dto.js';
import { checkUpdates, type CreateItem, createItems, type UpdateItem, updateItems } from '../records/record-input.js';
import { encodeCursor } from '../records/record-listing.js';
import { CREATE_ERRORS, DELETE_ERRORS, DeleteRefsBody, oneOrMany, REFS_BODY, REFS_QUERY, UPDATE_ERRORS } from '../records/record-routes.js';
import type { LogsElement, RecordsPage } from '../records/records.service.js';
import { APPOINTMENTS } from './appointments.definition.js';
import { AppointmentsService } from './appointments.service.js';
import {
  APPOINTMENT_EXAMPLES,
  AppointmentLogsElement,
  AppointmentsPageView,
  CreateAppointmentItemDto,
  ListAppointmentsQuery,
  UpdateAppointmentItemDto,
} from './dto/appointment.dto.js';

/** What a terminal's capacity rules refuse (docs/capacity.md). */
const CAPACITY_ERRORS: ErrorCode[] = ['SLOT_CLOSED', 'SLOT_FULL'];

const CreateBody = BatchPipe<CreateItem>(createItems(CreateAppointmentItemDto));
const UpdateBody = BatchPipe(updateItems(APPOINTMENTS, UpdateAppointmentItemDto), checkUpdates);

/** A terminal's appointments (interface: Endpoints); the rules live in the records engine (AppointmentsService). */
@ApiTags('appointments')
@Auth('terminal')
@AccessTo('appointments')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateAppointmentItemDto, UpdateAppointmentItemDto)
@Controller('api/v1/appointments')
export class AppointmentsController {
  constructor(private readonly appointments: AppointmentsService) {}

  @Post()
  @ApiOperation({ summary: 'Create appointments: one object or an array, all or nothing; drivers are created or updated' })
  @ApiJsonBody('`{driver, appointment}`, or an array of them', oneOrMany(CreateAppointmentItemDto), {
    one: { summary: 'One appointment', value: APPOINTMENT_EXAMPLES.create[0] },
    batch: { summary: 'Several appointments', value: APPOINTMENT_EXAMPLES.create },
  })
  @ApiEnvelope(201, CreatedRecordsView, {
    created_refs: APPOINTMENT_EXAMPLES.refs,
    created_ids: APPOINTMENT_EXAMPLES.ids,
    status: 'created',
  })
  @ApiErrors(...CREATE_ERRORS, ...CAPACITY_ERRORS)
  async create(
    @CurrentPartner() terminal: PartnerPrincipal,
    @Body(CreateBody) batch: Batch<CreateItem>,
  ): Promise<Envelope<CreatedRecordsView>> {
    return ok(await this.appointments.create(terminal.accountId, batch));
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update appointments by ref: only the fields sent change; status moves as the status table allows',
    description: `The moves each status allows: [statuses](${guideUrl('statuses')}).`,
  })
  @ApiJsonBody('`{ref, appointment}`, or an array of them', oneOrMany(UpdateAppointmentItemDto), {
    one: { summary: 'One appointment', value: APPOINTMENT_EXAMPLES.update[0] },
    batch: { summary: 'Several appointments', value: APPOINTMENT_EXAMPLES.update },
  })
  @ApiEnvelope(200, UpdatedRecordsView, { updated_refs: APPOINTMENT_EXAMPLES.refs, status: 'updated' })
  @ApiErrors(...UPDATE_ERRORS, ...CAPACITY_ERRORS)
  async update(
    @CurrentPartner() terminal: PartnerPrincipal,
    @Body(UpdateBody) batch: Batch<UpdateItem>,
  ): Promise<Envelope<UpdatedRecordsView>> {
    return ok(await this.appointments.update(terminal, batch));
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel appointments by ref: status becomes DELETED (the record and its ref are kept)' })
  @ApiJsonBody('One ref, or an array of refs', REFS_BODY, {
    one: { summary: 'One appointment', value: APPOINTMENT_EXAMPLES.refs[0] },
    batch: { summary: 'Several appointments', value: APPOINTMENT_EXAMPLES.refs },
  })
  @ApiEnvelope(200, DeletedRecordsView, { deleted_refs: APPOINTMENT_EXAMPLES.refs, status: 'deleted' })
  @ApiErrors(...DELETE_ERRORS)
  async remove(
    @CurrentPartner() terminal: PartnerPrincipal,
    @Body(DeleteRefsBody) batch: Batch<string>,
  ): Promise<Envelope<DeletedRecordsView>> {
    return ok(await this.appointments.delete(terminal.accountId, batch));
  }

  @Get()
  @ApiOperation({
    summary: 'List appointments: filters ANDed, ordered by window_start (none last) then ref, a page at a time',
    description: `Keyset pages: pass each page's next_cursor as cursor until it is null. The filters and the order: [listing](${guideUrl('listing')}).`,
  })
  @ApiEnvelope(200, AppointmentsPageView, {
    items: [{ appointment: APPOINTMENT_EXAMPLES.logged, driver: EXAMPLE.driverView }],
    next_cursor: encodeCursor({ key: '2026-11-22T08:00:00.000000Z', ref: APPOINTMENT_EXAMPLES.refs[0] }),
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentPartner() terminal: PartnerPrincipal, @Query() query: ListAppointmentsQuery): Promise<Envelope<RecordsPage>> {
    return ok(await this.appointments.list(terminal.accountId, query));
  }

  @Get('logs')
  @ApiOperation({ summary: 'Tracking history of appointments: each ref once, in request order; unknown refs found: false' })
  @ApiQuery(REFS_QUERY.describe('refs'))
  @ApiEnvelope(
    200,
    AppointmentLogsElement,
    [
      {
        ref: APPOINTMENT_EXAMPLES.refs[0],
        found: true,
        data: { appointment: APPOINTMENT_EXAMPLES.logged, driver: EXAMPLE.driverView, logs: APPOINTMENT_EXAMPLES.logs },
      },
      { ref: 'UNKNOWN-REF', found: false, data: null },
    ],
    { isArray: true },
  )
  @ApiErrors('VALIDATION_ERROR')
  async logs(@CurrentPartner() terminal: PartnerPrincipal, @Query('refs', REFS_QUERY) refs: QueryList): Promise<Envelope<LogsElement[]>> {
    return ok(await this.appointments.logs(terminal, refs));
  }
}
