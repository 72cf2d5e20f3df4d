import { Body, Controller, Delete, Get, Param, Put, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import {
  AVAILABILITY_DAYS,
  CapacityRuleView,
  DeletedCapacityRuleView,
  PutCapacityRuleDto,
  RuleAvailabilityView,
  TerminalAvailabilityQuery,
} from './dto/capacity.dto.js';
import { CapacityService } from './capacity.service.js';

/** A rule as the examples show it: hourly slots in São Paulo, open on weekdays, closed on Christmas Day. */
export const RULE_EXAMPLE = {
  name: 'Import pickups, gate A',
  layout_refs: ['demo-appointment'],
  time_zone: 'America/Sao_Paulo',
  slot_minutes: 60,
  capacity: 20,
  open_hours: [
    { days: [1, 2, 3, 4, 5], from: '06:00', to: '22:00' },
    { days: [6], from: '08:00', to: '12:00' },
  ],
  exceptions: [{ from: '2026-12-25T03:00:00.000Z', to: '2026-12-26T03:00:00.000Z', capacity: 0 }],
  bookable_by: [EXAMPLE.carrierId],
  carrier_quota: 0.5,
};
const RULE_VIEW = { rule_ref: 'gate-a', ...RULE_EXAMPLE, created_at: EXAMPLE.createdAt, updated_at: EXAMPLE.createdAt };
export const SLOTS_EXAMPLE = [
  { start: '2026-11-23T11:00:00.000Z', end: '2026-11-23T12:00:00.000Z', capacity: 20, booked: 12, free: 8, open: true },
  { start: '2026-11-23T12:00:00.000Z', end: '2026-11-23T13:00:00.000Z', capacity: 20, booked: 20, free: 0, open: true },
];
export const AVAILABILITY_RULE = {
  rule_ref: 'gate-a',
  name: RULE_EXAMPLE.name,
  layout_refs: RULE_EXAMPLE.layout_refs,
  time_zone: RULE_EXAMPLE.time_zone,
  slot_minutes: 60,
};
const REF_PARAM = { name: 'rule_ref', description: '1 to 100 characters (not `availability`)', example: 'gate-a' };

@ApiTags('capacity')
@Auth('terminal')
@AccessTo('capacity')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(PutCapacityRuleDto)
@Controller('api/v1/capacity')
export class CapacityController {
  constructor(private readonly capacity: CapacityService) {}

  @Get()
  @ApiOperation({ summary: "The terminal's capacity rules, by ref" })
  @ApiEnvelope(200, CapacityRuleView, [RULE_VIEW], { isArray: true })
  async list(@CurrentPartner() principal: PartnerPrincipal): Promise<Envelope<CapacityRuleView[]>> {
    return ok(await this.capacity.list(principal));
  }

  // Declared before :rule_ref, which would otherwise take the word.
  @Get('availability')
  @ApiOperation({
    summary: `Each slot of the terminal's rules (or of one) that begins in [from, to), at most ${AVAILABILITY_DAYS} days: capacity, booked, free, open`,
    description: `Slots follow the rule's local clock, daylight-saving days included: [capacity](${guideUrl('capacity')}).`,
  })
  @ApiEnvelope(200, RuleAvailabilityView, [{ ...AVAILABILITY_RULE, slots: SLOTS_EXAMPLE }], { isArray: true })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async availability(
    @CurrentPartner() principal: PartnerPrincipal,
    @Query() query: TerminalAvailabilityQuery,
  ): Promise<Envelope<RuleAvailabilityView[]>> {
    return ok(await this.capacity.terminalAvailability(principal, query));
  }

  @Put(':rule_ref')
  @ApiOperation({
    summary: 'Create or replace a capacity rule (201 created, 200 replaced)',
    description:
      `Slots, open hours, exceptions, carrier booking and how overbooking is prevented: [capacity](${guideUrl('capacity')}). ` +
      'A rule applies to the appointment writes after it is saved; appointments already in its slots stay, even beyond its capacity.',
  })
  @ApiParam(REF_PARAM)
  @ApiJsonBody(
    'The whole rule',
    { $ref: getSchemaPath(PutCapacityRuleDto) },
    {
      rule: { summary: 'Hourly slots on weekdays, carriers may book half of each', value: RULE_EXAMPLE },
      simple: {
        summary: '15-minute slots, always open',
        value: { time_zone: 'Europe/Berlin', slot_minutes: 15, capacity: 6 },
      },
    },
  )
  @ApiEnvelope(201, CapacityRuleView, RULE_VIEW, { description: 'Created' })
  @ApiEnvelope(200, CapacityRuleView, { ...RULE_VIEW, updated_at: EXAMPLE.updatedAt }, { description: 'Replaced' })
  @ApiErrors(...BODY_ERRORS, 'INVALID_LAYOUT_REF')
  async put(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('rule_ref') ref: string,
    @Body() body: PutCapacityRuleDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Envelope<CapacityRuleView>> {
    const { rule, created } = await this.capacity.put(principal, ref, body);
    response.status(created ? 201 : 200);
    return ok(rule);
  }

  @Get(':rule_ref')
  @ApiOperation({ summary: 'One capacity rule' })
  @ApiParam(REF_PARAM)
  @ApiEnvelope(200, CapacityRuleView, RULE_VIEW)
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async get(@CurrentPartner() principal: PartnerPrincipal, @Param('rule_ref') ref: string): Promise<Envelope<CapacityRuleView>> {
    return ok(await this.capacity.get(principal, ref));
  }

  @Delete(':rule_ref')
  @ApiOperation({ summary: 'Delete a capacity rule: its slots no longer limit anything (the appointments stay)' })
  @ApiParam(REF_PARAM)
  @ApiEnvelope(200, DeletedCapacityRuleView, { rule_ref: 'gate-a', status: 'deleted' })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND')
  async remove(@CurrentPartner() principal: PartnerPrincipal, @Param('rule_ref') ref: string): Promise<Envelope<DeletedCapacityRuleView>> {
    return ok(await this.capacity.delete(principal, ref));
  }
}
