import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { AccountsService } from './accounts.service.js';
import {
  AccountKeyView,
  AccountSettingsView,
  CreateAccountKeyDto,
  CreatedAccountKeyView,
  RevokedAccountKeyView,
  UpdateAccountSettingsDto,
} from './dto/account.dto.js';

const SETTINGS = {
  id: EXAMPLE.terminalId,
  kind: 'terminal',
  name: 'Port A',
  language: 'pt-BR',
  require_mfa: false,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};
const KEY = {
  id: EXAMPLE.apiKeyId,
  name: 'TOS integration',
  prefix: EXAMPLE.apiKeyPrefix,
  created_at: EXAMPLE.createdAt,
  last_used_at: EXAMPLE.updatedAt,
};

/** The caller's own account: its settings (language, MFA policy, name). */
@ApiTags('account')
@Auth('terminal', 'carrier')
@AccessTo('account')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(UpdateAccountSettingsDto)
@Controller('api/v1/account')
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's account: its name, language and MFA policy",
    description: `[The account's settings](${guideUrl('users', 'the-accounts-settings-and-keys')})`,
  })
  @ApiEnvelope(200, AccountSettingsView, SETTINGS)
  async get(@CurrentPartner() principal: PartnerPrincipal): Promise<Envelope<AccountSettingsView>> {
    return ok(await this.accounts.settings(principal.accountId));
  }

  @Patch()
  @ApiOperation({
    summary: "Change the account's name, language (of invitations) or MFA policy; only the fields sent change",
    description: 'require_mfa: true makes every user without MFA set it up at their next sign-in (MFA_SETUP_REQUIRED).',
  })
  @ApiJsonBody(
    'Only the fields to change',
    { $ref: getSchemaPath(UpdateAccountSettingsDto) },
    {
      language: { summary: 'Invitations in Portuguese', value: { language: 'pt-BR' } },
      mfa: { summary: 'Require MFA of everyone', value: { require_mfa: true } },
      name: { summary: 'Rename', value: { name: 'Port A – North gate' } },
    },
  )
  @ApiEnvelope(200, AccountSettingsView, { ...SETTINGS, require_mfa: true, updated_at: EXAMPLE.updatedAt })
  @ApiErrors(...BODY_ERRORS)
  async update(
    @CurrentPartner() principal: PartnerPrincipal,
    @Body() body: UpdateAccountSettingsDto,
  ): Promise<Envelope<AccountSettingsView>> {
    return ok(await this.accounts.updateSettings(principal.accountId, body));
  }
}

/** The account's own keys, for machines; its owners manage them (people's own keys are at /api/v1/me/api-keys). */
@ApiTags('keys')
@Auth('terminal', 'carrier')
@AccessTo('keys')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateAccountKeyDto)
@Controller('api/v1/account/api-keys')
export class AccountKeysController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @CarriesSecret({
    fields: ['api_key'],
    instead: 'make another (the same call, with a new Idempotency-Key) and revoke this one (DELETE /api/v1/account/api-keys/{id})',
  })
  @ApiOperation({
    summary: 'Make a key of the account (shown once): it has the rights of the account’s owners',
    description: `[The account's keys](${guideUrl('users', 'the-accounts-settings-and-keys')})`,
  })
  @ApiJsonBody(
    'Its name',
    { $ref: getSchemaPath(CreateAccountKeyDto) },
    { tos: { summary: 'For the TOS', value: { name: 'TOS integration' } } },
  )
  @ApiEnvelope(201, CreatedAccountKeyView, { ...KEY, last_used_at: null, api_key: EXAMPLE.apiKey }, { description: 'Made' })
  @ApiErrors(...BODY_ERRORS)
  async create(@CurrentPartner() principal: PartnerPrincipal, @Body() body: CreateAccountKeyDto): Promise<Envelope<CreatedAccountKeyView>> {
    return ok(await this.accounts.issueAccountKey(principal.accountId, body.name));
  }

  @Get()
  @ApiOperation({ summary: "The account's live keys, oldest first, with their last use (keys made before keys had names: name null)" })
  @ApiEnvelope(200, AccountKeyView, [KEY, { ...KEY, id: '1f2e3d4c-5b6a-4789-8a9b-0c1d2e3f4a5b', name: null }], { isArray: true })
  async list(@CurrentPartner() principal: PartnerPrincipal): Promise<Envelope<AccountKeyView[]>> {
    return ok(await this.accounts.accountKeys(principal.accountId));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke one of the account’s keys: refused from the next request on, its sockets closed' })
  @ApiParam({ name: 'id', description: 'The key id', example: EXAMPLE.apiKeyId })
  @ApiEnvelope(200, RevokedAccountKeyView, { id: EXAMPLE.apiKeyId, status: 'revoked', revoked_at: EXAMPLE.updatedAt })
  @ApiErrors('NOT_FOUND')
  async revoke(@CurrentPartner() principal: PartnerPrincipal, @Param('id') id: string): Promise<Envelope<RevokedAccountKeyView>> {
    return ok(await this.accounts.revokeAccountKey(principal.accountId, id));
  }
}
