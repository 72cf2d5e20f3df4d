import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsEmail, IsIn, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { NULL_WHEN_REPLAYED } from '../../../common/secrets/carries-secret.js';
import { IsIsoTimestamp } from '../../../common/validation/validators.js';
import { PERMISSIONS, type Permission, type Role } from '../../auth/permissions.js';
import { UserView } from './user.dto.js';

const ROLE_NAMES = ['owner', 'planner', 'gate', 'viewer', 'dispatcher'];
const ROLE_DESCRIPTION =
  "One of the roles of the account's kind: terminal owner, planner, gate or viewer; carrier owner, dispatcher or viewer";
export const NAME_MAX = 255;
const NAME = { type: String, nullable: true, maxLength: NAME_MAX, example: 'Ana Souza' };
const present = (property: string) => (object: Record<string, unknown>) => object[property] !== undefined && object[property] !== null;

export class CreateUserDto {
  @ApiProperty({
    format: 'email',
    maxLength: 320,
    example: 'ana@port-a.example',
    description: 'Compared case-insensitively, stored lower-case',
  })
  @IsDefined()
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({ enum: ROLE_NAMES, description: ROLE_DESCRIPTION, example: 'planner' })
  @IsDefined()
  @IsString()
  role: Role;

  @ApiPropertyOptional(NAME)
  @ValidateIf(present('name'))
  @IsString()
  @Length(1, NAME_MAX)
  name?: string | null;
}

export const USER_STATUS_CHANGES = ['active', 'deactivated'] as const;

export class UpdateUserDto {
  @ApiPropertyOptional({ enum: ROLE_NAMES, description: ROLE_DESCRIPTION, example: 'viewer' })
  @ValidateIf((object: { role?: unknown }) => object.role !== undefined)
  @IsString()
  role?: Role;

  @ApiPropertyOptional({ ...NAME, description: 'null removes it' })
  @ValidateIf(present('name'))
  @IsString()
  @Length(1, NAME_MAX)
  name?: string | null;

  @ApiPropertyOptional({
    enum: USER_STATUS_CHANGES,
    description: 'deactivated ends their sessions and revokes their keys at once; active lets a deactivated user sign in again',
  })
  @ValidateIf((object: { status?: unknown }) => object.status !== undefined)
  @IsIn(USER_STATUS_CHANGES)
  status?: (typeof USER_STATUS_CHANGES)[number];
}

export class InvitedUserView {
  @ApiProperty({ type: UserView }) user: UserView;
  @ApiProperty({
    type: String,
    nullable: true,
    description: `The link the person opens to accept (choose a password): works once, until expires_at; ${NULL_WHEN_REPLAYED}`,
    example: 'https://gate.example.com/panel#invitation=q3ZbX0mUZ0f1yYbqJx8vW2pR6nT4sA9cD7eF5gH1iJk',
  })
  invitation_url: string;
  @ApiProperty({ format: 'date-time', description: '7 days from now' }) expires_at: string;
  @ApiProperty({ description: 'The invitation was mailed to the address too (SMTP_URL set and the server took it)' }) mailed: boolean;
}

/** Who an invitation is for, so the page that accepts it can say so. */
export class InvitationView {
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ format: 'uuid' }) account_id: string;
  @ApiProperty({ description: "The inviting account's name" }) account_name: string;
  @ApiProperty({ enum: ['pt-BR', 'es', 'en'], description: "The account's language" }) language: string;
  @ApiProperty({ enum: ROLE_NAMES }) role: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

export class AcceptInvitationDto {
  @ApiProperty({
    minLength: 12,
    maxLength: 256,
    description: '12 to 256 characters, not one of the 10,000 most common passwords',
    example: 'correct horse battery staple',
  })
  @IsDefined()
  @IsString()
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ ...NAME, description: 'Replaces the name the inviter gave' })
  @ValidateIf(present('name'))
  @IsString()
  @Length(1, NAME_MAX)
  name?: string | null;
}

export const KEY_NAME_MAX = 100;

export class CreateMyKeyDto {
  @ApiProperty({ minLength: 1, maxLength: KEY_NAME_MAX, example: 'Yard tablet script' })
  @IsDefined()
  @IsString()
  @Length(1, KEY_NAME_MAX)
  name: string;

  @ApiPropertyOptional({
    enum: PERMISSIONS,
    isArray: true,
    description: "At most the user's own permissions (GET /api/v1/me); absent: all of them, as the user's role has them at each request",
    example: ['appointments:read'],
  })
  @ValidateIf(present('permissions'))
  @IsArray()
  @ArrayMaxSize(PERMISSIONS.length)
  @IsIn(PERMISSIONS, { each: true, message: 'each of permissions must be a permission such as appointments:read' })
  permissions?: Permission[] | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the key stops working; absent: never',
    example: '2027-01-31T00:00:00Z',
  })
  @ValidateIf(present('expires_at'))
  @IsIsoTimestamp()
  expires_at?: string | null;
}

/** A user's own key, as listed (the key itself is shown only when made). */
export class MyKeyView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'The first characters of the key', example: 'gsk_AbC123' }) prefix: string;
  @ApiProperty({ enum: PERMISSIONS, isArray: true, nullable: true, description: "null: all of the user's" }) permissions:
    Permission[] | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'To the minute' }) last_used_at: string | null;
}

export class CreatedMyKeyView extends MyKeyView {
  @ApiProperty({ type: String, nullable: true, description: `The new key: shown this once, store it now; ${NULL_WHEN_REPLAYED}` })
  api_key: string;
}

export class RevokedKeyView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['revoked'] }) status: 'revoked';
  @ApiProperty({ format: 'date-time' }) revoked_at: string;
}
