import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { Auth, CurrentPrincipal, Requires } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { CreatedMyKeyView, CreateMyKeyDto, MyKeyView, RevokedKeyView } from './dto/users.dto.js';
import { MyKeysService } from './my-keys.service.js';

const KEY = {
  id: EXAMPLE.apiKeyId,
  name: 'Yard tablet script',
  prefix: EXAMPLE.apiKeyPrefix,
  permissions: ['appointments:read'],
  expires_at: '2027-01-31T00:00:00.000Z',
  created_at: EXAMPLE.createdAt,
  last_used_at: null,
};
const ID_PARAM = { name: 'id', description: 'The key id', example: EXAMPLE.apiKeyId };

/** A signed-in person's own API keys: only their session manages them (not a key). */
@ApiTags('keys')
@Auth()
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateMyKeyDto)
@Controller('api/v1/me/api-keys')
export class MyKeysController {
  constructor(private readonly keys: MyKeysService) {}

  @Post()
  @Requires('session')
  @CarriesSecret({
    fields: ['api_key'],
    instead: 'make another (the same call, with a new Idempotency-Key) and revoke this one (DELETE /api/v1/me/api-keys/{id})',
  })
  @ApiOperation({
    summary: 'Make a key of your own (shown once): it acts as you, with some of your permissions or all of them',
    description:
      'permissions: at most yours (VALIDATION_ERROR otherwise); absent, all of yours. The key keeps only what your role still ' +
      'grants at each request, dies when you are deactivated, and stops at expires_at. ' +
      `[A user's own keys](${guideUrl('users', 'a-users-own-keys')})`,
  })
  @ApiJsonBody(
    'A name, and optionally permissions and an expiry',
    { $ref: getSchemaPath(CreateMyKeyDto) },
    {
      narrow: {
        summary: 'Read appointments only, until January',
        value: { name: 'Yard tablet script', permissions: ['appointments:read'], expires_at: '2027-01-31T00:00:00Z' },
      },
      all: { summary: 'All of my permissions', value: { name: 'My scripts' } },
    },
  )
  @ApiEnvelope(201, CreatedMyKeyView, { ...KEY, api_key: EXAMPLE.apiKey }, { description: 'Made' })
  @ApiErrors(...BODY_ERRORS)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateMyKeyDto): Promise<Envelope<CreatedMyKeyView>> {
    return ok(await this.keys.create(principal, body));
  }

  @Get()
  @Requires('session')
  @ApiOperation({ summary: 'Your own live keys (without the keys themselves)' })
  @ApiEnvelope(200, MyKeyView, [KEY], { isArray: true })
  async list(@CurrentPrincipal() principal: Principal): Promise<Envelope<MyKeyView[]>> {
    return ok(await this.keys.list(principal));
  }

  @Delete(':id')
  @Requires('session')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke one of your keys; it is refused from the next request on (its sockets closed)' })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(200, RevokedKeyView, { id: EXAMPLE.apiKeyId, status: 'revoked', revoked_at: EXAMPLE.updatedAt })
  @ApiErrors('NOT_FOUND')
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<Envelope<RevokedKeyView>> {
    return ok(await this.keys.revoke(principal, id));
  }
}
