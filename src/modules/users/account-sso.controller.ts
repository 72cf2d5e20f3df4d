import { Body, Controller, Delete, Get, HttpCode, Put, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { AccountSsoService, ssoView } from './account-sso.service.js';
import { SsoDeletedView, SsoSettingsDto, SsoSettingsView } from './dto/sso.dto.js';

const GUIDE = `[Single sign-on](${guideUrl('users', 'single-sign-on')})`;
const SETTINGS = {
  issuer: 'https://login.port-a.example/realms/staff',
  client_id: 'gate-service',
  email_domains: ['port-a.example'],
  default_role: 'viewer',
  passwords_allowed: false,
  redirect_uri: 'https://gate.port-a.example/sso/callback',
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.updatedAt,
};

/** This service's origin as the browser reaches it (behind a trusted proxy, as it says). */
export const originOf = (request: Request) => `${request.protocol}://${request.get('host') ?? 'localhost'}`;

@ApiTags('account')
@ApiExtraModels(SsoSettingsDto)
@Auth('terminal', 'carrier')
@AccessTo('account')
@Controller('api/v1/account/sso')
export class AccountSsoController {
  constructor(private readonly sso: AccountSsoService) {}

  @Get()
  @ApiOperation({
    summary: "The account's single sign-on (OpenID Connect): everything but the client secret",
    description: `404 NOT_FOUND when the account has none. ${GUIDE}`,
  })
  @ApiEnvelope(200, SsoSettingsView, SETTINGS)
  @ApiErrors(...COMMON_ERRORS, 'NOT_FOUND')
  async get(@Req() request: Request, @CurrentPartner() caller: PartnerPrincipal): Promise<Envelope<SsoSettingsView>> {
    return ok(ssoView(await this.sso.get(caller.accountId), originOf(request)));
  }

  @Put()
  @ApiOperation({
    summary: "Set or replace the account's single sign-on: its OpenID Connect provider, email domains and default role",
    description:
      'Answers 201 when set the first time, 200 when replaced. The issuer must use https:// (http:// only when the service runs ' +
      "with SSO_ALLOW_HTTP=true); `default_role` is one of the account kind's roles (else 400 VALIDATION_ERROR on the field). An " +
      "email domain belongs to one account's SSO only: one taken answers 409 DUPLICATE_KEY with `details.refs`. The client secret " +
      'is never answered back; left out when replacing, the stored one is kept. Register `redirect_uri` at the provider. ' +
      `\`passwords_allowed: false\` makes password sign-in of the account's users answer 401 SSO_REQUIRED. ${GUIDE}`,
  })
  @ApiJsonBody(
    'The provider, the domains that sign in through it, and the role of a person new to the service',
    { $ref: getSchemaPath(SsoSettingsDto) },
    {
      sso: {
        summary: 'SSO only, no passwords',
        value: {
          issuer: 'https://login.port-a.example/realms/staff',
          client_id: 'gate-service',
          client_secret: 's3cr3t-from-the-provider',
          email_domains: ['port-a.example'],
          default_role: 'viewer',
          passwords_allowed: false,
        },
      },
    },
  )
  @ApiEnvelope(200, SsoSettingsView, SETTINGS, { description: 'Replaced' })
  @ApiEnvelope(201, SsoSettingsView, SETTINGS, { description: 'Set the first time' })
  @ApiErrors(...COMMON_ERRORS, ...BODY_ERRORS, 'DUPLICATE_KEY')
  async put(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @CurrentPartner() caller: PartnerPrincipal,
    @Body() body: SsoSettingsDto,
  ): Promise<Envelope<SsoSettingsView>> {
    const { sso, created } = await this.sso.put(caller.accountId, caller.kind, body);
    response.status(created ? 201 : 200);
    return ok(ssoView(sso, originOf(request)));
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({
    summary: "Remove the account's single sign-on",
    description: `Its people sign in with passwords again (a user the SSO created has none until invited). 404 NOT_FOUND when none. ${GUIDE}`,
  })
  @ApiEnvelope(200, SsoDeletedView, { status: 'deleted' })
  @ApiErrors(...COMMON_ERRORS, 'NOT_FOUND')
  async remove(@CurrentPartner() caller: PartnerPrincipal): Promise<Envelope<SsoDeletedView>> {
    await this.sso.remove(caller.accountId);
    return ok({ status: 'deleted' });
  }
}
