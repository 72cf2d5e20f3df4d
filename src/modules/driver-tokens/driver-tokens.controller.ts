import { Controller, Delete, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProperty, ApiTags } from '@nestjs/swagger';
import { guideUrl } from '../../common/docs/guide.js';
import { ApiEnvelope, ApiErrors, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret, NULL_WHEN_REPLAYED } from '../../common/secrets/carries-secret.js';
import { Auth, CurrentPrincipal } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { DriverTokensService } from './driver-tokens.service.js';

class DriverTokenView {
  @ApiProperty({
    type: String,
    nullable: true,
    description: `Send as Authorization: Bearer <token> (REST) or auth: {token} (socket /driver); ${NULL_WHEN_REPLAYED}`,
  })
  token: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

class RevokedTokensView {
  @ApiProperty({ example: '12345678901', description: 'The driver whose tokens you minted are now refused' }) tax_id: string;
  @ApiProperty({ enum: ['revoked'] }) status: 'revoked';
}

@ApiTags('drivers')
@Auth('carrier', 'terminal')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/drivers')
export class DriverTokensController {
  constructor(private readonly drivers: DriverTokensService) {}

  @Post(':tax_id/tokens')
  @CarriesSecret({
    fields: ['token'],
    instead: 'mint another (the same call, with a new Idempotency-Key); DELETE /api/v1/drivers/{tax_id}/tokens revokes those you minted',
  })
  @ApiOperation({
    summary: 'A driver token for the driver app; the caller must own a live trip or appointment of this driver',
    description:
      "The token sees only the caller's records (its appointments and their tickets, or its trips) and the caller's feed of this " +
      `driver: a driver app working with several partners holds one token per partner. See [driver tokens](${guideUrl('driver-tokens')}).`,
  })
  @ApiParam({ name: 'tax_id', example: '12345678901' })
  @ApiEnvelope(201, DriverTokenView, { token: EXAMPLE.driverToken, expires_at: '2026-11-22T16:48:54.000Z' })
  @ApiErrors('NOT_FOUND')
  async issue(@CurrentPrincipal() principal: Principal, @Param('tax_id') taxId: string): Promise<Envelope<DriverTokenView>> {
    return ok(await this.drivers.issueToken(principal, taxId));
  }

  @Delete(':tax_id/tokens')
  @ApiOperation({
    summary: 'Revoke every driver token the caller minted for this driver; their open /driver sockets are closed at once',
    description: `Tokens minted by other partners are not affected. A token minted afterwards works again. See [driver tokens](${guideUrl('driver-tokens', 'revoking')}).`,
  })
  @ApiParam({ name: 'tax_id', example: '12345678901' })
  @ApiEnvelope(200, RevokedTokensView, { tax_id: '12345678901', status: 'revoked' })
  @ApiErrors('NOT_FOUND')
  async revoke(@CurrentPrincipal() principal: Principal, @Param('tax_id') taxId: string): Promise<Envelope<RevokedTokensView>> {
    return ok(await this.drivers.revokeTokens(principal, taxId));
  }
}
