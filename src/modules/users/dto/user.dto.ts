import { EXAMPLE } from '../../../common/docs/examples.js';
import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ACCOUNT_KINDS, ACCOUNT_LANGUAGES, type AccountKind, type AccountLanguage } from '../../accounts/account.entity.js';
import { USER_STATUSES, type UserStatus } from '../../accounts/user.entity.js';
import { PERMISSIONS, type Permission, type Role } from '../../auth/permissions.js';

const ROLE_NAMES = ['owner', 'planner', 'gate', 'viewer', 'dispatcher', 'admin'];

/** A person of an account, as every route answers one. */
export class UserView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'email', description: 'Lower-case: one user per address in the whole service' }) email: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ enum: ROLE_NAMES, description: "The user's role; which roles an account has depends on its kind" }) role: Role;
  @ApiProperty({ format: 'uuid' }) account_id: string;
  @ApiProperty({ enum: USER_STATUSES }) status: UserStatus;
  @ApiProperty({ description: 'Two-factor authentication (TOTP) is on' }) mfa_enabled: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_sign_in_at: string | null;
}

/** The account of a signed-in person, with its settings. */
export class SignedInAccountView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ACCOUNT_KINDS }) kind: AccountKind;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ACCOUNT_LANGUAGES, description: 'The language of what the service writes to its people (invitations)' })
  language: AccountLanguage;
  @ApiProperty({ description: 'Every user must set two-factor authentication up' }) require_mfa: boolean;
}

/** POST /api/v1/sessions answers this, and sets the `gate_session` cookie. */
export class SessionView {
  @ApiProperty({ type: UserView }) user: UserView;
  @ApiProperty({ type: SignedInAccountView }) account: SignedInAccountView;
  @ApiProperty({ enum: PERMISSIONS, isArray: true, description: "What the user's role allows, each write's read included" })
  permissions: Permission[];
  @ApiProperty({ description: 'Send it as X-CSRF-Token with every POST, PUT, PATCH and DELETE made with the cookie' })
  csrf_token: string;
  @ApiProperty({ format: 'date-time', description: 'The session ends then (12 hours: a shift), or when signed out' })
  expires_at: string;
}

export class SignInDto {
  @ApiProperty({ example: 'ana@port-a.example' })
  @IsString()
  @MaxLength(320)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @MaxLength(256)
  password: string;

  @ApiProperty({
    required: false,
    description: "The authenticator app's 6-digit code, or a recovery code, when MFA is on",
    example: '123456',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  totp?: string;
}

export class SignedOutView {
  @ApiProperty({ enum: ['signed_out'] }) status: 'signed_out';
}

/** A person signed in (a sign-in's, or an accepted invitation's, answer), as the OpenAPI examples show it. */
export const SIGNED_IN_EXAMPLE = {
  user: {
    id: EXAMPLE.userId,
    email: 'ana@port-a.example',
    name: 'Ana Souza',
    role: 'planner',
    account_id: EXAMPLE.terminalId,
    status: 'active',
    mfa_enabled: false,
    created_at: EXAMPLE.createdAt,
    last_sign_in_at: EXAMPLE.updatedAt,
  },
  account: { id: EXAMPLE.terminalId, kind: 'terminal', name: 'Port A', language: 'pt-BR', require_mfa: false },
  permissions: ['appointments:read', 'appointments:write', 'tickets:read', 'tickets:write'],
  csrf_token: 'Vq0mJ0c3m2m7wQ5l8tq1bX2yYw9S6p4nN3kH1dF0aZc',
  expires_at: EXAMPLE.updatedAt,
};
