import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AccessTo, Auth, CurrentPrincipal } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { UserView } from './dto/user.dto.js';
import { CreateUserDto, InvitedUserView, UpdateUserDto } from './dto/users.dto.js';
import { publicOrigin } from './request-origin.js';
import { UsersService } from './users.service.js';

export const USER_EXAMPLE = {
  id: EXAMPLE.userId,
  email: 'ana@port-a.example',
  name: 'Ana Souza',
  role: 'planner',
  account_id: EXAMPLE.terminalId,
  status: 'invited',
  mfa_enabled: false,
  created_at: EXAMPLE.createdAt,
  last_sign_in_at: null,
};
const ACTIVE = { ...USER_EXAMPLE, status: 'active', last_sign_in_at: EXAMPLE.updatedAt };
const INVITED = {
  user: USER_EXAMPLE,
  invitation_url: 'https://gate.example.com/panel#invitation=q3ZbX0mUZ0f1yYbqJx8vW2pR6nT4sA9cD7eF5gH1iJk',
  expires_at: '2026-11-29T04:48:54.123Z',
  mailed: true,
};
const ID_PARAM = { name: 'id', description: 'The user id', example: EXAMPLE.userId };
const RESEND = 'send a new one (POST /api/v1/users/{id}/invitation)';

@ApiTags('users')
@Auth('terminal', 'carrier')
@AccessTo('users')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateUserDto, UpdateUserDto)
@Controller('api/v1/users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @CarriesSecret({ fields: ['invitation_url'], instead: RESEND })
  @ApiOperation({
    summary: 'Invite a person: a user of the account with a role, invited until they accept (7 days, once)',
    description:
      'Answers the invitation link (also mailed to the address when the service has SMTP_URL). An email is one user in the whole ' +
      `service, compared case-insensitively: DUPLICATE_KEY if it is taken. [Users and invitations](${guideUrl('users', 'users-and-invitations')})`,
  })
  @ApiJsonBody(
    'The address, the role (one of the account kind’s) and optionally a name',
    { $ref: getSchemaPath(CreateUserDto) },
    {
      planner: { summary: 'A planner', value: { email: 'ana@port-a.example', role: 'planner', name: 'Ana Souza' } },
      gate: { summary: 'A gate clerk, no name yet', value: { email: 'gate.north@port-a.example', role: 'gate' } },
    },
  )
  @ApiEnvelope(201, InvitedUserView, INVITED, { description: 'Invited' })
  @ApiErrors(...BODY_ERRORS, 'DUPLICATE_KEY')
  async create(
    @Req() request: Request,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateUserDto,
  ): Promise<Envelope<InvitedUserView>> {
    return ok(await this.users.invite(principal, body, publicOrigin(this.config, request)));
  }

  @Get()
  @ApiOperation({ summary: "The account's users, oldest first" })
  @ApiEnvelope(200, UserView, [ACTIVE], { isArray: true })
  async list(@CurrentPrincipal() principal: Principal): Promise<Envelope<UserView[]>> {
    return ok(await this.users.list(principal));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One user of the account' })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(200, UserView, ACTIVE)
  @ApiErrors('NOT_FOUND')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<Envelope<UserView>> {
    return ok(await this.users.get(principal, id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: "Change a user's role or name, deactivate them or let them back in; only the fields sent change",
    description:
      'A new role counts from their next request. Deactivating ends their sessions and revokes their own keys at once (their ' +
      'sockets too). The last active owner can be neither demoted nor deactivated: LAST_OWNER. An invited user becomes active ' +
      `only by accepting (INVALID_STATUS_TRANSITION). [Users](${guideUrl('users', 'users-and-invitations')})`,
  })
  @ApiParam(ID_PARAM)
  @ApiJsonBody(
    'Only the fields to change',
    { $ref: getSchemaPath(UpdateUserDto) },
    {
      role: { summary: 'Another role', value: { role: 'viewer' } },
      deactivate: { summary: 'Deactivate', value: { status: 'deactivated' } },
      reactivate: { summary: 'Let them back in', value: { status: 'active' } },
      name: { summary: 'Rename', value: { name: 'Ana S. Souza' } },
    },
  )
  @ApiEnvelope(200, UserView, { ...ACTIVE, role: 'viewer' })
  @ApiErrors(...BODY_ERRORS, 'NOT_FOUND', 'LAST_OWNER', 'INVALID_STATUS_TRANSITION')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: UpdateUserDto,
  ): Promise<Envelope<UserView>> {
    return ok(await this.users.update(principal, id, body));
  }

  @Post(':id/invitation')
  @HttpCode(201)
  @CarriesSecret({ fields: ['invitation_url'], instead: RESEND })
  @ApiOperation({
    summary: 'A new invitation for a user who has not accepted yet (mailed too when it can be); the earlier ones stop working',
  })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(201, InvitedUserView, INVITED, { description: 'Invited again' })
  @ApiErrors('NOT_FOUND', 'INVALID_STATUS_TRANSITION')
  async reinvite(
    @Req() request: Request,
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<Envelope<InvitedUserView>> {
    return ok(await this.users.reinvite(principal, id, publicOrigin(this.config, request)));
  }
}
