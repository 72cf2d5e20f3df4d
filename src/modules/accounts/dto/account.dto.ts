import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsNumber, IsOptional, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { NULL_WHEN_REPLAYED } from '../../../common/secrets/carries-secret.js';
import { Nested } from '../../../common/validation/validators.js';
import { ACCOUNT_KINDS, ACCOUNT_LANGUAGES, type AccountKind, type AccountLanguage } from '../account.entity.js';

export class GeoFenceDto {
  @ApiProperty({ example: -23.9608, minimum: -90, maximum: 90 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-90)
  @Max(90)
  lat: number;

  @ApiProperty({ example: -46.3336, minimum: -180, maximum: 180 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180)
  @Max(180)
  lng: number;

  @ApiProperty({ example: 500, description: 'Radius of the gate geofence in metres', minimum: 1, maximum: 100000 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1)
  @Max(100_000)
  radius_m: number;
}

export class CreateAccountDto {
  @ApiProperty({ enum: ACCOUNT_KINDS, example: 'terminal' })
  @IsIn(ACCOUNT_KINDS)
  kind: AccountKind;

  @ApiProperty({ example: 'Port A', minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiPropertyOptional({ type: GeoFenceDto, description: "A terminal's gate geofence; only terminals have one" })
  @Nested(() => GeoFenceDto, { optional: true })
  location?: GeoFenceDto | null;
}

export class UpdateAccountDto {
  @ApiPropertyOptional({ example: 'Port A – North gate', minLength: 1, maxLength: 255 })
  @ValidateIf((object: { name?: unknown }) => object.name !== undefined)
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ type: GeoFenceDto, nullable: true, description: 'null removes the geofence' })
  @Nested(() => GeoFenceDto, { optional: true })
  location?: GeoFenceDto | null;
}

export class ListAccountsQueryDto {
  @ApiPropertyOptional({ enum: ACCOUNT_KINDS })
  @IsOptional()
  @IsIn(ACCOUNT_KINDS)
  kind?: AccountKind;
}

export class AccountView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ACCOUNT_KINDS }) kind: AccountKind;
  @ApiProperty() name: string;
  @ApiProperty({ type: GeoFenceDto, nullable: true }) location: GeoFenceDto | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ApiKeyView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true, description: 'What people call the key; null for keys made before keys had names' })
  name: string | null;
  @ApiProperty({ description: 'The first characters of the key', example: 'gsk_AbC123' }) prefix: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: "A user's own key: that user; null for an account key" })
  user_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the key last authenticated a request, to the minute',
  })
  last_used_at: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revoked_at: string | null;
}

export class AccountDetailView extends AccountView {
  @ApiProperty({ type: [ApiKeyView] }) api_keys: ApiKeyView[];
}

export class CreatedAccountView extends AccountView {
  @ApiProperty({
    type: String,
    nullable: true,
    description: `The new key: shown this once, store it now; ${NULL_WHEN_REPLAYED}`,
    example: 'gsk_…',
  })
  api_key: string;
  @ApiProperty({ format: 'uuid', description: 'Id of the new key, for revoking it' }) api_key_id: string;
}

export class IssuedKeyView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true, description: `The new key: shown this once, store it now; ${NULL_WHEN_REPLAYED}` })
  api_key: string;
}

/** The person behind a session or a user's own key, as GET /api/v1/me answers it. */
export class MeUserView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ description: "The user's role (docs/users.md#roles)", example: 'planner' }) role: string;
  @ApiProperty() mfa_enabled: boolean;
}

/** GET /api/v1/me: who the caller is, and what it may do. */
export class MeView {
  @ApiProperty({ enum: ACCOUNT_KINDS, description: "The caller's account kind: what it may call" }) kind: AccountKind;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The account the caller belongs to; null for the bootstrap ADMIN_API_KEY, which belongs to none',
  })
  account_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The account's name; null for the bootstrap ADMIN_API_KEY" })
  name: string | null;
  @ApiProperty({
    type: String,
    isArray: true,
    description:
      "What the caller may do (`<resource>:read|write`, each write's read included): an account key has its account's owners' rights",
    example: ['appointments:read', 'appointments:write'],
  })
  permissions: string[];
  @ApiProperty({ type: MeUserView, nullable: true, description: "The person, for a session or a user's own key; null for an account key" })
  user: MeUserView | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "A session's CSRF token (send it as X-CSRF-Token with every change); null for a key",
  })
  csrf_token: string | null;
  @ApiProperty({ description: 'A session that may only set MFA up (the account requires it)' }) mfa_setup_required: boolean;
}

/** The account's own settings, as its owners see and change them. */
export class AccountSettingsView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ACCOUNT_KINDS }) kind: AccountKind;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ACCOUNT_LANGUAGES, description: 'The language of what the service writes to its people (invitations)' })
  language: AccountLanguage;
  @ApiProperty({ description: 'Every user must set two-factor authentication up before anything else' }) require_mfa: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class UpdateAccountSettingsDto {
  @ApiPropertyOptional({ example: 'Port A – North gate', minLength: 1, maxLength: 255 })
  @ValidateIf((object: { name?: unknown }) => object.name !== undefined)
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ enum: ACCOUNT_LANGUAGES, description: 'pt-BR, es or en: the language of invitations' })
  @ValidateIf((object: { language?: unknown }) => object.language !== undefined)
  @IsIn(ACCOUNT_LANGUAGES)
  language?: AccountLanguage;

  @ApiPropertyOptional({ description: 'true: users without MFA must set it up at their next sign-in' })
  @ValidateIf((object: { require_mfa?: unknown }) => object.require_mfa !== undefined)
  @IsBoolean()
  require_mfa?: boolean;
}

/** One of the account's own keys (for machines: partner systems, terminal servers), without the key itself. */
export class AccountKeyView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for keys made before keys had names' }) name: string | null;
  @ApiProperty({ description: 'The first characters of the key', example: 'gsk_AbC123' }) prefix: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the key last authenticated a request, to the minute',
  })
  last_used_at: string | null;
}

export class CreateAccountKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'TOS integration' })
  @IsDefined()
  @IsString()
  @Length(1, 100)
  name: string;
}

export class CreatedAccountKeyView extends AccountKeyView {
  @ApiProperty({ type: String, nullable: true, description: `The new key: shown this once, store it now; ${NULL_WHEN_REPLAYED}` })
  api_key: string;
}

export class RevokedAccountKeyView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['revoked'] }) status: 'revoked';
  @ApiProperty({ format: 'date-time' }) revoked_at: string;
}
