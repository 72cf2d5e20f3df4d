import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner, Requires } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { DeletedLayoutView, LayoutDraftPreviewDto, LayoutPreviewDto, LayoutView, PutLayoutDto } from './dto/layout.dto.js';
import { DraftLayoutPipe, type LayoutDraft, PutLayoutPipe, SentLayout } from './layout-input.pipe.js';
import { type LayoutBody, type LayoutLanguage as LayoutLanguageCode, LAYOUT_SETS } from './layout-schema.js';
import { LayoutSetGuard } from './layout-set.guard.js';
import { LayoutsService } from './layouts.service.js';
import { RenderedDraftLayoutView, RenderedLayoutView } from './dto/rendered-layout.dto.js';
import { ApiLayoutLanguage, LayoutLanguage } from './layout-language.js';
import type { RenderedLayout } from './render.js';

const CARD = {
  name: 'Container pickup',
  card_layout: [
    { type: 'section', title: 'Pickup' },
    { type: 'field', label: 'Plate', path: 'license_plate' },
    { type: 'alert', color: 'yellow', text: 'Bring the seal', icon: 'warning' },
  ],
  modal_layout: [
    { type: 'field', label: 'Container', path: 'custom_data.container.number' },
    { type: 'qrcode', path: 'ref' },
  ],
};
const TICKET = {
  name: 'Gate ticket',
  elements: [
    { type: 'section', title: 'Gate pass' },
    { type: 'highlight', label: 'Gate', path: 'content.gate' },
    { type: 'instruction', steps: ['Show this ticket at the gate', 'Follow the signs to your bay'] },
  ],
};
/** A ticket whose texts are written in three languages: each driver reads them in theirs. */
const TICKET_IN_LANGUAGES = {
  name: 'Gate ticket',
  elements: [
    { type: 'section', title: { 'pt-BR': 'Passe do portão', es: 'Pase de acceso', en: 'Gate pass' } },
    { type: 'highlight', label: { 'pt-BR': 'Portão', es: 'Puerta', en: 'Gate' }, path: 'content.gate' },
    { type: 'field', label: { 'pt-BR': 'Placa', es: 'Placa', en: 'Plate' }, path: 'appointment.license_plate' },
    {
      type: 'instruction',
      steps: [
        { 'pt-BR': 'Mostre este ticket no portão', es: 'Muestre este ticket en la puerta', en: 'Show this ticket at the gate' },
        { 'pt-BR': 'Siga a sinalização até a sua doca', es: 'Siga la señalización hasta su andén', en: 'Follow the signs to your bay' },
      ],
    },
  ],
};
const stored = (set: string, layout_ref: string, body: object) => ({
  layout_ref,
  set,
  ...body,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
});
const CARD_VIEW = stored('appointment', 'pickup-v1', CARD);

const SAMPLE_RECORD = {
  license_plate: 'ABC1D23',
  driver: { tax_id: '12345678901' },
  custom_data: { container: { number: 'MSCU1234567' } },
};
const RENDERED_CARD = {
  layout_ref: 'pickup-v1',
  name: 'Container pickup',
  card_layout: [
    { type: 'section', title: 'Pickup' },
    { type: 'field', label: 'Plate', path: 'license_plate', value: 'ABC1D23' },
    { type: 'alert', color: 'yellow', text: 'Bring the seal', icon: 'warning' },
  ],
  modal_layout: [
    { type: 'field', label: 'Container', path: 'custom_data.container.number', value: 'MSCU1234567' },
    { type: 'qrcode', path: 'ref', value: null },
  ],
};

const SET_PARAM = { name: 'set', enum: LAYOUT_SETS, description: 'trip (carrier keys), appointment or ticket (terminal keys)' };
const REF_PARAM = { name: 'layout_ref', description: '1 to 100 characters', example: 'pickup-v1' };

@ApiTags('layouts')
@ApiExtraModels(PutLayoutDto, LayoutPreviewDto, LayoutDraftPreviewDto)
@Auth('carrier', 'terminal')
@AccessTo('layouts')
@ApiErrors(...COMMON_ERRORS)
@UseGuards(LayoutSetGuard)
@Controller('api/v1/layouts')
export class LayoutsController {
  constructor(private readonly layouts: LayoutsService) {}

  @Put(':set/:layout_ref')
  @ApiOperation({ summary: 'Create or replace a layout of the calling account (201 created, 200 replaced)' })
  @ApiParam(SET_PARAM)
  @ApiParam(REF_PARAM)
  @ApiJsonBody(
    'card_layout and modal_layout for the trip and appointment sets, elements for the ticket set',
    { $ref: getSchemaPath(PutLayoutDto) },
    {
      card: { summary: 'A trip or appointment layout', value: CARD },
      ticket: { summary: 'A ticket layout', value: TICKET },
      languages: { summary: 'A ticket layout whose texts are written in pt-BR, es and en', value: TICKET_IN_LANGUAGES },
    },
  )
  @ApiEnvelope(201, LayoutView, CARD_VIEW, { description: 'Created' })
  @ApiEnvelope(200, LayoutView, { ...CARD_VIEW, updated_at: EXAMPLE.updatedAt }, { description: 'Replaced' })
  @ApiErrors('NOT_FOUND', ...BODY_ERRORS)
  async put(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('set') set: string,
    @Param('layout_ref') ref: string,
    @SentLayout(PutLayoutPipe) body: LayoutBody,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Envelope<LayoutView>> {
    const { layout, created } = await this.layouts.put(principal, set, ref, body);
    response.status(created ? 201 : 200);
    return ok(layout);
  }

  @Get(':set')
  @ApiOperation({ summary: 'The layouts of one set owned by the calling account' })
  @ApiParam(SET_PARAM)
  @ApiEnvelope(200, LayoutView, [CARD_VIEW], { isArray: true })
  @ApiErrors('NOT_FOUND')
  async list(@CurrentPartner() principal: PartnerPrincipal, @Param('set') set: string): Promise<Envelope<LayoutView[]>> {
    return ok(await this.layouts.list(principal, set));
  }

  @Get(':set/:layout_ref')
  @ApiOperation({ summary: 'One layout' })
  @ApiParam(SET_PARAM)
  @ApiParam(REF_PARAM)
  @ApiEnvelope(200, LayoutView, stored('ticket', 'gate-ticket', TICKET))
  @ApiErrors('NOT_FOUND', 'VALIDATION_ERROR')
  async get(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('set') set: string,
    @Param('layout_ref') ref: string,
  ): Promise<Envelope<LayoutView>> {
    return ok(await this.layouts.get(principal, set, ref));
  }

  @Post(':set/preview')
  // A preview saves nothing: whoever reads layouts may draw one.
  @Requires('layouts:read')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Render an unsaved layout against sample data: what the preview of that layout, once saved, would answer',
    description:
      'Body `{layout, data, layout_ref?}`: `layout` is the body PUT /api/v1/layouts/{set}/{layout_ref} takes, validated the same way ' +
      '(its problems come back as VALIDATION_ERROR at the same paths, such as `card_layout[2].path`); `data` is a sample record as for ' +
      "POST /api/v1/layouts/{set}/{layout_ref}/preview. Nothing is saved. The answer is that route's for the layout once saved, " +
      'with `layout_ref` the one given (null without).',
  })
  @ApiParam(SET_PARAM)
  @ApiJsonBody(
    'The layout as PUT takes it, and a sample record under `data`',
    { $ref: getSchemaPath(LayoutDraftPreviewDto) },
    {
      card: { summary: 'A trip or appointment layout', value: { layout: CARD, data: SAMPLE_RECORD, layout_ref: 'pickup-v1' } },
      ticket: { summary: 'A ticket layout', value: { layout: TICKET, data: { content: { gate: 'C1', lane: 4 } } } },
    },
  )
  @ApiLayoutLanguage()
  @ApiEnvelope(200, RenderedDraftLayoutView, RENDERED_CARD)
  @ApiErrors('NOT_FOUND', ...BODY_ERRORS)
  previewDraft(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('set') set: string,
    @SentLayout(DraftLayoutPipe) draft: LayoutDraft,
    @LayoutLanguage() language: LayoutLanguageCode | null,
  ): Envelope<Omit<RenderedLayout, 'layout_ref'> & { layout_ref: string | null }> {
    return ok(this.layouts.previewDraft(principal, set, draft, language));
  }

  @Post(':set/:layout_ref/preview')
  // A preview saves nothing: whoever reads layouts may draw one.
  @Requires('layouts:read')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Render a layout against sample data, exactly as the driver app will receive it',
    description:
      'Body `{data}`: a sample record — for trip and appointment layouts its fields plus `driver` and `custom_data`; for ticket layouts ' +
      '`content`, and optionally `appointment` and `driver`. Each element comes back with `value` resolved from its path (null when absent).',
  })
  @ApiParam(SET_PARAM)
  @ApiParam(REF_PARAM)
  @ApiJsonBody(
    'A sample record under `data`',
    { $ref: getSchemaPath(LayoutPreviewDto) },
    {
      record: {
        summary: 'A trip or appointment',
        value: { data: SAMPLE_RECORD },
      },
      ticket: { summary: 'A ticket', value: { data: { content: { gate: 'C1', lane: 4 } } } },
    },
  )
  @ApiLayoutLanguage()
  @ApiEnvelope(200, RenderedLayoutView, RENDERED_CARD)
  @ApiErrors('NOT_FOUND', ...BODY_ERRORS)
  async preview(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('set') set: string,
    @Param('layout_ref') ref: string,
    @Body() body: LayoutPreviewDto,
    @LayoutLanguage() language: LayoutLanguageCode | null,
  ): Promise<Envelope<RenderedLayout>> {
    return ok(await this.layouts.preview(principal, set, ref, body, language));
  }

  @Delete(':set/:layout_ref')
  @ApiOperation({ summary: 'Delete a layout; refused with LAYOUT_IN_USE while a live record uses it' })
  @ApiParam(SET_PARAM)
  @ApiParam(REF_PARAM)
  @ApiEnvelope(200, DeletedLayoutView, { deleted_refs: ['pickup-v1'], status: 'deleted' })
  @ApiErrors('NOT_FOUND', 'VALIDATION_ERROR', 'LAYOUT_IN_USE')
  async delete(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('set') set: string,
    @Param('layout_ref') ref: string,
  ): Promise<Envelope<DeletedLayoutView>> {
    return ok(await this.layouts.delete(principal, set, ref));
  }
}
