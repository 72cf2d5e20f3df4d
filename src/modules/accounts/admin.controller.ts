import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { Auth } from '../auth/auth.decorators.js';
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

@ApiTags('admin')
@Auth('admin')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/admin')
export class AdminController {
  constructor(private readonly accounts: AccountsService) {}

  @Post('accounts')
  @ApiOperation({ summary: 'Create a carrier, terminal or admin account with its first API key (shown once)' })
  @ApiEnvelope(201, CreatedAccountView)
  @ApiErrors(...BODY_ERRORS)
  async create(@Body() body: CreateAccountDto): Promise<Envelope<CreatedAccountView>> {
    return ok(await this.accounts.create(body));
  }

  @Get('accounts')
  @ApiOperation({ summary: 'List accounts, optionally of one kind' })
  @ApiEnvelope(200, AccountView, { isArray: true })
  @ApiErrors('VALIDATION_ERROR')
  async list(@Query() query: ListAccountsQueryDto): Promise<Envelope<AccountView[]>> {
    return ok(await this.accounts.list(query.kind));
  }

  @Get('accounts/:id')
  @ApiOperation({ summary: 'One account with its API keys (prefixes only)' })
  @ApiEnvelope(200, AccountDetailView)
  @ApiErrors('NOT_FOUND')
  async get(@Param('id') id: string): Promise<Envelope<AccountDetailView>> {
    return ok(await this.accounts.get(id));
  }

  @Patch('accounts/:id')
  @ApiOperation({ summary: "Rename an account or set a terminal's gate geofence" })
  @ApiEnvelope(200, AccountView)
  @ApiErrors('NOT_FOUND', ...BODY_ERRORS)
  async update(@Param('id') id: string, @Body() body: UpdateAccountDto): Promise<Envelope<AccountView>> {
    return ok(await this.accounts.update(id, body));
  }

  @Post('accounts/:id/api-keys')
  @ApiOperation({ summary: 'Issue another API key for an account (shown once)' })
  @ApiEnvelope(201, IssuedKeyView)
  @ApiErrors('NOT_FOUND')
  async issueKey(@Param('id') id: string): Promise<Envelope<IssuedKeyView>> {
    return ok(await this.accounts.issueKey(id));
  }

  @Delete('api-keys/:id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an API key; it is refused from the next request on' })
  @ApiEnvelope(200, ApiKeyView)
  @ApiErrors('NOT_FOUND')
  async revokeKey(@Param('id') id: string): Promise<Envelope<ApiKeyView>> {
    return ok(await this.accounts.revokeKey(id));
  }
}
