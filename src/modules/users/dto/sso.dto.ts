import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';

export const EMAIL_DOMAINS_MAX = 50;
export const ISSUER_MAX = 2048;
/** A DNS name of at least two labels: `port-a.example`, `mail.port-a.example` (any case; stored lower-case). */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

const ROLE_NAMES = ['owner', 'planner', 'gate', 'viewer', 'dispatcher'];

/** PUT /api/v1/account/sso: the account's OpenID Connect provider. */
export class SsoSettingsDto {
  @ApiProperty({
    description:
      "The provider's issuer identifier (its discovery document is at <issuer>/.well-known/openid-configuration); https:// unless SSO_ALLOW_HTTP",
    example: 'https://login.port-a.example/realms/staff',
    maxLength: ISSUER_MAX,
  })
  @IsString()
  @Length(1, ISSUER_MAX)
  issuer: string;

  @ApiProperty({ description: 'The client id the provider gave the service', example: 'gate-service', minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  client_id: string;

  @ApiProperty({
    required: false,
    description:
      'The client secret the provider gave the service; never answered back. Required the first time; left out, the one stored is kept',
    example: 's3cr3t-from-the-provider',
    minLength: 1,
    maxLength: 4096,
  })
  @IsOptional()
  @IsString()
  @Length(1, 4096)
  client_secret?: string;

  @ApiProperty({
    type: String,
    isArray: true,
    minItems: 1,
    maxItems: EMAIL_DOMAINS_MAX,
    description: "The domains of the addresses that sign in through this provider; each belongs to one account's SSO only",
    example: ['port-a.example'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EMAIL_DOMAINS_MAX)
  @IsString({ each: true })
  @Matches(DOMAIN_PATTERN, { each: true, message: 'each of $property must be a domain name such as port-a.example' })
  email_domains: string[];

  @ApiProperty({
    enum: ROLE_NAMES,
    description: "The role of a person signed in for the first time: one of the account kind's roles",
    example: 'viewer',
  })
  @IsString()
  default_role: string;

  @ApiProperty({
    required: false,
    default: true,
    description: "false: the account's users may not sign in with a password (401 SSO_REQUIRED), only through the provider",
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  passwords_allowed?: boolean;
}

/** The account's single sign-on, as GET and PUT answer it: everything but the secret. */
export class SsoSettingsView {
  @ApiProperty() issuer: string;
  @ApiProperty() client_id: string;
  @ApiProperty({ type: String, isArray: true, description: 'Lower-case' }) email_domains: string[];
  @ApiProperty({ enum: ROLE_NAMES }) default_role: string;
  @ApiProperty() passwords_allowed: boolean;
  @ApiProperty({ description: "The redirect URI to register at the provider: this service's /sso/callback" }) redirect_uri: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class SsoDeletedView {
  @ApiProperty({ enum: ['deleted'] }) status: 'deleted';
}
