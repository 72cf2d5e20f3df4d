import { Body, Controller, Delete, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiProperty, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import type { Request } from 'express';
import { guideUrl } from '../../common/docs/guide.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret, NULL_WHEN_REPLAYED } from '../../common/secrets/carries-secret.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { AccessTo, Auth, CurrentPartner, Public } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { DriverTokensService } from './driver-tokens.service.js';
import { CODE_LENGTH, CODE_TTL_MINUTES } from './sign-in-codes.js';

class DriverTokenView {
  @ApiProperty({
    type: String,
    nullable: true,
    description: `Send as Authorization: Bearer <token> (REST) or auth: {token} (socket /driver); ${NULL_WHEN_REPLAYED}`,
  })
  token: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

class MintedTokenView extends DriverTokenView {
  @ApiProperty({
    example: 'K7M4XQ2P',
    pattern: `^[2-9A-HJKMNP-TV-Z]{${CODE_LENGTH}}$`,
    description:
      `The same sign-in as a code a person can type: ${CODE_LENGTH} characters without look-alikes, valid once and for ` +
      `${CODE_TTL_MINUTES} minutes (never past the token's expires_at). The driver app exchanges it at POST /api/v1/driver/sessions.`,
  })
  code: string;
  @ApiProperty({ format: 'date-time', description: 'The code is refused from then on' }) code_expires_at: string;
}

class RevokedTokensView {
  @ApiProperty({ example: '12345678901', description: 'The driver whose tokens you minted are now refused' }) tax_id: string;
  @ApiProperty({ enum: ['revoked'] }) status: 'revoked';
}

export class SignInCodeDto {
  @ApiProperty({ example: 'K7M4XQ2P', description: 'As given with the token; letter case, spaces and dashes do not matter' })
  @IsDefined()
  @IsString()
  @Length(1, 64)
  code: string;
}

const CODE_EXAMPLE = { token: EXAMPLE.driverToken, expires_at: '2026-11-22T16:48:54.000Z' };

@ApiTags('drivers')
@Auth('carrier', 'terminal')
@AccessTo('drivers')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/drivers')
export class DriverTokensController {
  constructor(private readonly drivers: DriverTokensService) {}

  @Post(':tax_id/tokens')
  @CarriesSecret({
    fields: ['token', 'code'],
    instead: 'mint another (the same call, with a new Idempotency-Key); DELETE /api/v1/drivers/{tax_id}/tokens revokes those you minted',
  })
  @ApiOperation({
    summary: 'A driver token for the driver app, and a sign-in code for it; the caller must own a live trip or appointment of this driver',
    description:
      "The token sees only the caller's records (its appointments and their tickets, or its trips) and the caller's feed of this " +
      `driver: a driver app working with several partners holds one token per partner. See [driver tokens](${guideUrl('driver-tokens')}).`,
  })
  @ApiParam({ name: 'tax_id', example: '12345678901' })
  @ApiEnvelope(201, MintedTokenView, { ...CODE_EXAMPLE, code: 'K7M4XQ2P', code_expires_at: '2026-11-22T04:03:54.000Z' })
  @ApiErrors('NOT_FOUND')
  async issue(@CurrentPartner() principal: PartnerPrincipal, @Param('tax_id') taxId: string): Promise<Envelope<MintedTokenView>> {
    return ok(await this.drivers.issueToken(principal, taxId));
  }

  @Delete(':tax_id/tokens')
  @ApiOperation({
    summary:
      'Revoke every driver token the caller minted for this driver, and their unused sign-in codes; their open /driver sockets are closed at once',
    description: `Tokens minted by other partners are not affected. A token minted afterwards works again. See [driver tokens](${guideUrl('driver-tokens', 'revoking')}).`,
  })
  @ApiParam({ name: 'tax_id', example: '12345678901' })
  @ApiEnvelope(200, RevokedTokensView, { tax_id: '12345678901', status: 'revoked' })
  @ApiErrors('NOT_FOUND')
  async revoke(@CurrentPartner() principal: PartnerPrincipal, @Param('tax_id') taxId: string): Promise<Envelope<RevokedTokensView>> {
    return ok(await this.drivers.revokeTokens(principal, taxId));
  }
}

@ApiTags('driver app')
@ApiExtraModels(SignInCodeDto)
@Public()
@Controller('api/v1/driver/sessions')
export class DriverSessionsController {
  constructor(
    private readonly drivers: DriverTokensService,
    private readonly failures: AuthFailures,
  ) {}

  @Post()
  @HttpCode(201)
  @CarriesSecret({ fields: ['token'] })
  @ApiOperation({
    summary: 'Sign in by code: exchange a sign-in code for a driver token (no key: the code is the credential)',
    description:
      'The code is used up: a second exchange of it is refused. The token is of the same driver and partner, and expires at the ' +
      'same time, as the one minted with the code. A code that does not sign in counts as a failed authentication of the client ' +
      'address, which is refused for the rest of the minute once over AUTH_FAILURES_PER_MIN; past DRIVER_CODE_FAILURES_PER_MIN failed ' +
      'exchanges a minute across all addresses, every exchange is refused until the minute ends (429 RATE_LIMITED with Retry-After). ' +
      `See [sign-in by code](${guideUrl('driver-tokens', 'sign-in-by-code')}).`,
  })
  @ApiJsonBody('The code', { $ref: getSchemaPath(SignInCodeDto) }, { code: { summary: 'A code as given', value: { code: 'K7M4XQ2P' } } })
  @ApiEnvelope(201, DriverTokenView, CODE_EXAMPLE)
  @ApiErrors(...BODY_ERRORS, 'SIGN_IN_CODE_INVALID', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
  async exchange(@Req() request: Request, @Body() body: SignInCodeDto): Promise<Envelope<DriverTokenView>> {
    return ok(await this.drivers.exchangeCode(body.code, this.failures.addressOf(request)));
  }
}
