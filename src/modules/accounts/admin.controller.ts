import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth } from '../auth/auth.decorators.js';
import { AccountsService } from './accounts.service.js';
import {
  AccountDetailView,
  AccountView,
  ApiKeyView,
  CreateAccountDto,
  CreatedAccountView,
  IssuedKeyView,
  ListAccountsQueryDto,
  UpdateAccountDto,
} from './dto/account.dto.js';

const GEOFENCE = { lat: -23.9608, lng: -46.3336, radius_m: 800 };
const TERMINAL = {
  id: EXAMPLE.terminalId,
  kind: 'terminal',
  name: 'Port A',
  location: GEOFENCE,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};
const CARRIER = { ...TERMINAL, id: EXAMPLE.carrierId, kind: 'carrier', name: 'Fast Freight', location: null };
const API_KEY = {
  id: EXAMPLE.apiKeyId,
  name: 'TOS integration',
  prefix: EXAMPLE.apiKeyPrefix,
  user_id: null,
  created_at: EXAMPLE.createdAt,
  last_used_at: EXAMPLE.updatedAt,
  revoked_at: null,
};

@ApiTags('admin')
@ApiExtraModels(CreateAccountDto, UpdateAccountDto)
@Auth('admin')
@AccessTo('accounts')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/admin')
export class AdminController {
  constructor(private readonly accounts: AccountsService) {}

  @Post('accounts')
  @CarriesSecret({
    fields: ['api_key'],
    instead:
      'issue another key (POST /api/v1/admin/accounts/{id}/api-keys) and revoke this one (DELETE /api/v1/admin/api-keys/{api_key_id})',
  })
  @ApiOperation({ summary: 'Create a carrier, terminal or admin account with its first API key (shown once)' })
  @ApiJsonBody(
    'The account; a terminal may have a gate geofence',
    { $ref: getSchemaPath(CreateAccountDto) },
    {
      terminal: { summary: 'A terminal with its gate geofence', value: { kind: 'terminal', name: 'Port A', location: GEOFENCE } },
      carrier: { summary: 'A carrier', value: { kind: 'carrier', name: 'Fast Freight' } },
    },
  )
  @ApiEnvelope(201, CreatedAccountView, { ...TERMINAL, api_key: EXAMPLE.apiKey, api_key_id: EXAMPLE.apiKeyId })
  @ApiErrors(...BODY_ERRORS)
  async create(@Body() body: CreateAccountDto): Promise<Envelope<CreatedAccountView>> {
    return ok(await this.accounts.create(body));
  }

  @Get('accounts')
  @ApiOperation({ summary: 'List accounts, optionally of one kind' })
  @ApiEnvelope(200, AccountView, [TERMINAL, CARRIER], { isArray: true })
  @ApiErrors('VALIDATION_ERROR')
  async list(@Query() query: ListAccountsQueryDto): Promise<Envelope<AccountView[]>> {
    return ok(await this.accounts.list(query.kind));
  }

  @Get('accounts/:id')
  @ApiOperation({ summary: 'One account with its API keys (prefixes only)' })
  @ApiEnvelope(200, AccountDetailView, { ...TERMINAL, api_keys: [API_KEY] })
  @ApiErrors('NOT_FOUND')
  async get(@Param('id') id: string): Promise<Envelope<AccountDetailView>> {
    return ok(await this.accounts.get(id));
  }

  @Patch('accounts/:id')
  @ApiOperation({ summary: "Rename an account or set a terminal's gate geofence" })
  @ApiJsonBody(
    'Only the fields to change',
    { $ref: getSchemaPath(UpdateAccountDto) },
    {
      rename: { summary: 'Rename', value: { name: 'Port A – North gate' } },
      geofence: { summary: 'Move the gate geofence', value: { location: { ...GEOFENCE, radius_m: 1200 } } },
      clear: { summary: 'Remove the geofence', value: { location: null } },
    },
  )
  @ApiEnvelope(200, AccountView, { ...TERMINAL, name: 'Port A – North gate', updated_at: EXAMPLE.updatedAt })
  @ApiErrors('NOT_FOUND', ...BODY_ERRORS)
  async update(@Param('id') id: string, @Body() body: UpdateAccountDto): Promise<Envelope<AccountView>> {
    return ok(await this.accounts.update(id, body));
  }

  @Post('accounts/:id/api-keys')
  @CarriesSecret({
    fields: ['api_key'],
    instead: 'issue another (the same call, with a new Idempotency-Key) and revoke this one (DELETE /api/v1/admin/api-keys/{id})',
  })
  @ApiOperation({ summary: 'Issue another API key for an account (shown once)' })
  @ApiEnvelope(201, IssuedKeyView, { id: EXAMPLE.apiKeyId, api_key: EXAMPLE.apiKey })
  @ApiErrors('NOT_FOUND')
  async issueKey(@Param('id') id: string): Promise<Envelope<IssuedKeyView>> {
    return ok(await this.accounts.issueKey(id));
  }

  @Delete('api-keys/:id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an API key; it is refused from the next request on' })
  @ApiEnvelope(200, ApiKeyView, { ...API_KEY, revoked_at: EXAMPLE.updatedAt })
  @ApiErrors('NOT_FOUND')
  async revokeKey(@Param('id') id: string): Promise<Envelope<ApiKeyView>> {
    return ok(await this.accounts.revokeKey(id));
  }
}
