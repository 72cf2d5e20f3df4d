import { Body, Controller, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type Batch, BatchPipe } from '../../common/batch/batch.pipe.js';
import { dtoItems } from '../../common/batch/batch-input.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { AppError } from '../../common/errors/app-error.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { oneOrMany } from '../records/record-routes.js';
import { APPOINTMENT_EXAMPLES } from '../appointments/dto/appointment.dto.js';
import {
  checkReads,
  GateReadDto,
  ListReferralsQuery,
  READ_ID,
  ReadOutcomeView,
  ReferralsPageView,
  ReferralView,
  ResolveReferralDto,
} from './dto/gate.dto.js';
import { GateService } from './gate.service.js';

const ReadsBody = BatchPipe(dtoItems(GateReadDto), (items, batch) => checkReads(items, batch.path));

const REFERRAL_ID = '3b9f1d2e-6c4a-4f8b-9d0e-1a2b3c4d5e6f';
const READ = {
  read_id: 'cam-3-20261129-081502-0042',
  lane: 'in-2',
  stage: 'arrival',
  plate: 'ABC1C34',
  confidence: 0.97,
  candidates: [{ plate: 'ABC1G34', confidence: 0.41 }],
  read_at: '2026-11-29T08:15:02-03:00',
};
const READ_VIEW = {
  ...READ,
  read_at: '2026-11-29T11:15:02.000Z',
  confidence: 0.62,
  outcome: 'referred',
  appointment_ref: null,
  referral_id: REFERRAL_ID,
  image: { content_type: 'image/jpeg', url: `/api/v1/gate/reads/${READ.read_id}/image` },
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};
const REFERRAL = {
  id: REFERRAL_ID,
  status: 'open',
  reason: 'low_confidence',
  detail: null,
  read: READ_VIEW,
  candidates: [{ appointment: APPOINTMENT_EXAMPLES.logged, driver: EXAMPLE.driverView }],
  created_at: EXAMPLE.createdAt,
  expires_at: '2026-11-23T04:48:54.123Z',
  resolved_at: null,
  resolution: null,
};
const ID_PARAM = { name: 'id', description: 'The referral id', example: REFERRAL_ID };

/** The gate without a phone (docs/gate.md): plate reads, their images, and the referrals a clerk resolves. */
@ApiTags('gate')
@Auth('terminal')
@AccessTo('gate')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(GateReadDto, ResolveReferralDto)
@Controller('api/v1/gate')
export class GateController {
  constructor(private readonly gate: GateService) {}

  @Post('reads')
  @ApiOperation({
    summary: 'Send plate reads (one or an array): each is matched to an appointment and acted on, or referred to a clerk',
    description: `Permission \`gate:write\`. The batch is validated whole; then each read acts alone, and the answer waits for the check-in handshakes (at most CHECKIN_TIMEOUT_MS), in the order sent. A read_id sent again updates its read and never acts twice. Matching, stages and reasons: [the gate](${guideUrl('gate')}).`,
  })
  @ApiJsonBody('A read, or an array of reads', oneOrMany(GateReadDto), {
    one: { summary: 'An arrival', value: READ },
    image: {
      summary: 'With its image',
      value: {
        ...READ,
        read_id: 'cam-3-20261129-081502-0043',
        image: {
          content_type: 'image/png',
          data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
        },
      },
    },
    batch: {
      summary: 'Entry and exit',
      value: [
        { ...READ, read_id: 'cam-5-0001', lane: 'yard-1', stage: 'entry' },
        { ...READ, read_id: 'cam-9-0001', lane: 'out-1', stage: 'exit', plate: 'XYZ9876' },
      ],
    },
  })
  @ApiEnvelope(
    201,
    ReadOutcomeView,
    [
      { read_id: 'cam-5-0001', outcome: 'matched', appointment_ref: 'APPT-0001' },
      { read_id: 'cam-9-0001', outcome: 'referred', referral_id: REFERRAL_ID },
    ],
    { isArray: true, description: 'Created: what each read did, in the order sent' },
  )
  @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE')
  async reads(
    @CurrentPartner() terminal: PartnerPrincipal,
    @Body(ReadsBody) batch: Batch<GateReadDto>,
  ): Promise<Envelope<ReadOutcomeView[]>> {
    return ok(await this.gate.reads(terminal.accountId, batch.items));
  }

  @Get('reads/:read_id/image')
  @ApiOperation({
    summary: "A read's image, as it was sent (JPEG or PNG), while it is kept (GATE_IMAGE_RETENTION_DAYS)",
    description: `Permission \`gate:read\`. [Images](${guideUrl('gate', 'images')}).`,
  })
  @ApiParam({ name: 'read_id', example: READ.read_id })
  @ApiResponse({
    status: 200,
    description: 'The image',
    content: {
      'image/jpeg': { schema: { type: 'string', format: 'binary' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiErrors('READ_NOT_FOUND')
  async image(@CurrentPartner() terminal: PartnerPrincipal, @Param('read_id') readId: string): Promise<StreamableFile> {
    if (!READ_ID.test(readId))
      throw new AppError('READ_NOT_FOUND', `No image of read ${readId.slice(0, 100)} is kept`, { read_id: readId.slice(0, 100) });
    const { image, image_type } = await this.gate.image(terminal.accountId, readId);
    return new StreamableFile(image, { type: image_type, length: image.length, disposition: `inline; filename="${readId}"` });
  }

  @Get('referrals')
  @ApiOperation({
    summary: 'The referrals of a status (open by default; resolved, expired), newest first, a page at a time',
    description: `Permission \`gate:read\`. Keyset pages: pass each page's next_cursor as cursor until it is null. [Referrals](${guideUrl('gate', 'referrals')}).`,
  })
  @ApiEnvelope(200, ReferralsPageView, { items: [REFERRAL], next_cursor: null })
  @ApiErrors('VALIDATION_ERROR')
  async referrals(@CurrentPartner() terminal: PartnerPrincipal, @Query() query: ListReferralsQuery): Promise<Envelope<unknown>> {
    return ok(await this.gate.referrals(terminal.accountId, query));
  }

  @Post('referrals/:id/resolve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resolve a referral, once: with the appointment the read was (acting as a match), or reject it',
    description: `Permission \`gate:write\`. With \`appointment_ref\` the read's stage acts on that appointment as a match would (the handshake for a SCHEDULED one; its read's read_at stamped), and its errors are answered with the referral left open. [Referrals](${guideUrl('gate', 'referrals')}).`,
  })
  @ApiParam(ID_PARAM)
  @ApiJsonBody('The appointment, or the rejection', ResolveReferralDto, {
    match: { summary: 'It was this appointment', value: { appointment_ref: 'APPT-0001' } },
    reject: { summary: 'No appointment of ours', value: { reject: true, note: 'Truck without an appointment, sent away' } },
  })
  @ApiEnvelope(200, ReferralView, {
    ...REFERRAL,
    status: 'resolved',
    read: { ...READ_VIEW, appointment_ref: 'APPT-0001' },
    resolved_at: EXAMPLE.updatedAt,
    resolution: { outcome: 'matched', appointment_ref: 'APPT-0001', note: null },
  })
  @ApiErrors(
    ...BODY_ERRORS,
    'REFERRAL_NOT_FOUND',
    'APPOINTMENT_NOT_FOUND',
    'REFERRAL_RESOLVED',
    'INVALID_STATUS_TRANSITION',
    'CHECKIN_REJECTED',
    'CHECKIN_FAILED',
    'TERMINAL_OFFLINE',
    'TERMINAL_TIMEOUT',
  )
  async resolve(
    @CurrentPartner() terminal: PartnerPrincipal,
    @Param('id') id: string,
    @Body() body: ResolveReferralDto,
  ): Promise<Envelope<unknown>> {
    return ok(await this.gate.resolve(terminal.accountId, id, body));
  }
}
