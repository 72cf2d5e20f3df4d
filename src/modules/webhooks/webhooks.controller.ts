import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import {
  CreateWebhookDto,
  DeletedWebhookView,
  DeliveriesPageView,
  DeliveriesQuery,
  ReplayWebhookDto,
  UpdateWebhookDto,
  WebhookReplayView,
  WebhookTestView,
  WebhookView,
  WebhookWithSecretView,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

const WEBHOOK_ID = '8d4c2f1e-5b6a-4c7d-9e8f-0a1b2c3d4e5f';
const EVENT_ID = '6f1c2a4e-8b0d-4c3e-9a57-2d1e0f9b7c11';
const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD3wHEAfyMCiA=';
const CREATE = {
  url: 'https://partner.example.com/hooks/gate',
  events: ['appointment.*', 'ticket.created'],
  description: 'Gate events for our TMS',
};
const VIEW = {
  id: WEBHOOK_ID,
  ...CREATE,
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};
const ID_PARAM = { name: 'id', description: 'The webhook id', example: WEBHOOK_ID };

@ApiTags('webhooks')
@Auth('terminal', 'carrier')
@AccessTo('webhooks')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateWebhookDto, UpdateWebhookDto, ReplayWebhookDto)
@Controller('api/v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @CarriesSecret({ fields: ['secret'], instead: 'rotate it (POST /api/v1/webhooks/{id}/rotate-secret)' })
  @ApiOperation({
    summary: "Subscribe a URL to the account's events: each is POSTed to it, signed (Standard Webhooks), retried until a 2xx",
    description: `The answer carries the signing secret, shown only here. Deliveries, signatures, retries: [webhooks](${guideUrl('webhooks')}).`,
  })
  @ApiJsonBody(
    'The URL, and optionally the event types and a description',
    { $ref: getSchemaPath(CreateWebhookDto) },
    {
      some: { summary: 'Appointments and new tickets', value: CREATE },
      all: { summary: 'Every event', value: { url: 'https://partner.example.com/hooks/gate' } },
    },
  )
  @ApiEnvelope(201, WebhookWithSecretView, { ...VIEW, secret: SECRET }, { description: 'Created' })
  @ApiErrors(...BODY_ERRORS, 'WEBHOOK_URL_NOT_ALLOWED')
  async create(@CurrentPartner() principal: PartnerPrincipal, @Body() body: CreateWebhookDto): Promise<Envelope<WebhookWithSecretView>> {
    return ok(await this.webhooks.create(principal, body));
  }

  @Get()
  @ApiOperation({ summary: "The account's webhooks, oldest first (without their secrets)" })
  @ApiEnvelope(200, WebhookView, [VIEW], { isArray: true })
  async list(@CurrentPartner() principal: PartnerPrincipal): Promise<Envelope<WebhookView[]>> {
    return ok(await this.webhooks.list(principal));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook (without its secret)' })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(200, WebhookView, VIEW)
  @ApiErrors('WEBHOOK_NOT_FOUND')
  async get(@CurrentPartner() principal: PartnerPrincipal, @Param('id') id: string): Promise<Envelope<WebhookView>> {
    return ok(await this.webhooks.get(principal, id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change the URL, the event types or the description, or pause or resume it; only the fields sent change',
    description: `A paused webhook receives nothing; resumed, it gets the events of the pause, nothing skipped: [pausing](${guideUrl('webhooks', 'pausing')}).`,
  })
  @ApiParam(ID_PARAM)
  @ApiJsonBody(
    'Only the fields to change',
    { $ref: getSchemaPath(UpdateWebhookDto) },
    {
      url: { summary: 'Move it', value: { url: 'https://partner.example.com/hooks/gate-v2' } },
      all: { summary: 'Every event type', value: { events: null } },
      pause: { summary: 'Pause it', value: { enabled: false } },
      resume: { summary: 'Resume it', value: { enabled: true } },
    },
  )
  @ApiEnvelope(200, WebhookView, { ...VIEW, url: 'https://partner.example.com/hooks/gate-v2', updated_at: EXAMPLE.updatedAt })
  @ApiErrors(...BODY_ERRORS, 'WEBHOOK_URL_NOT_ALLOWED', 'WEBHOOK_NOT_FOUND')
  async update(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<Envelope<WebhookView>> {
    return ok(await this.webhooks.update(principal, id, body));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a webhook: nothing more is sent to it, and its delivery log goes with it' })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(200, DeletedWebhookView, { id: WEBHOOK_ID, status: 'deleted' })
  @ApiErrors('WEBHOOK_NOT_FOUND')
  async delete(@CurrentPartner() principal: PartnerPrincipal, @Param('id') id: string): Promise<Envelope<DeletedWebhookView>> {
    return ok(await this.webhooks.delete(principal, id));
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @CarriesSecret({ fields: ['secret'], instead: 'rotate it again, with a new Idempotency-Key' })
  @ApiOperation({
    summary: 'A new signing secret, shown only here; the previous one keeps signing deliveries too for 24 hours',
    description: `Meanwhile each delivery carries two signatures, so receivers can switch over: [rotation](${guideUrl('webhooks', 'rotating-the-secret')}).`,
  })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(200, WebhookWithSecretView, {
    ...VIEW,
    secret: SECRET,
    previous_secret_expires_at: '2026-11-23T05:02:10.456Z',
    updated_at: EXAMPLE.updatedAt,
  })
  @ApiErrors('WEBHOOK_NOT_FOUND')
  async rotateSecret(@CurrentPartner() principal: PartnerPrincipal, @Param('id') id: string): Promise<Envelope<WebhookWithSecretView>> {
    return ok(await this.webhooks.rotateSecret(principal, id));
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a webhook.test event to the webhook now, whatever its event types; its outcome shows in the deliveries',
  })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(202, WebhookTestView, { event_id: EVENT_ID, type: 'webhook.test' }, { description: 'Queued' })
  @ApiErrors('WEBHOOK_NOT_FOUND')
  async test(@CurrentPartner() principal: PartnerPrincipal, @Param('id') id: string): Promise<Envelope<WebhookTestView>> {
    return ok(await this.webhooks.sendTest(principal, id));
  }

  @Post(':id/replay')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send again the kept events with a seq above after_seq, of the types the webhook takes (up to 10,000 per call)',
  })
  @ApiParam(ID_PARAM)
  @ApiJsonBody(
    'Where to start',
    { $ref: getSchemaPath(ReplayWebhookDto) },
    {
      after: { summary: 'Everything after seq 1041', value: { after_seq: 1041 } },
    },
  )
  @ApiEnvelope(202, WebhookReplayView, { queued: 2, last_seq: 1043, more: false }, { description: 'Queued' })
  @ApiErrors(...BODY_ERRORS, 'WEBHOOK_NOT_FOUND')
  async replay(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('id') id: string,
    @Body() body: ReplayWebhookDto,
  ): Promise<Envelope<WebhookReplayView>> {
    return ok(await this.webhooks.replay(principal, id, body));
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The delivery log: every attempt, newest first, a page at a time' })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(200, DeliveriesPageView, {
    items: [
      {
        id: '5312',
        event_id: EVENT_ID,
        seq: 1042,
        type: 'appointment.status_changed',
        attempt: 2,
        status: 'delivered',
        response_status: 200,
        duration_ms: 84,
        error: null,
        next_attempt_at: null,
        created_at: EXAMPLE.updatedAt,
      },
      {
        id: '5301',
        event_id: EVENT_ID,
        seq: 1042,
        type: 'appointment.status_changed',
        attempt: 1,
        status: 'retrying',
        response_status: 503,
        duration_ms: 12,
        error: 'answered 503',
        next_attempt_at: '2026-11-22T05:02:08.000Z',
        created_at: EXAMPLE.createdAt,
      },
    ],
    next_cursor: 'NTMwMQ',
  })
  @ApiErrors('VALIDATION_ERROR', 'WEBHOOK_NOT_FOUND')
  async deliveries(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('id') id: string,
    @Query() query: DeliveriesQuery,
  ): Promise<Envelope<DeliveriesPageView>> {
    return ok(await this.webhooks.attempts(principal, id, query));
  }
}
