import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { NULL_WHEN_REPLAYED } from '../../../common/secrets/carries-secret.js';

/** The code that confirms or turns off two-factor authentication. */
export class MfaCodeDto {
  @ApiProperty({
    description: "The authenticator app's current 6-digit code (turning MFA off also takes one of the recovery codes)",
    example: '123456',
    minLength: 1,
    maxLength: 64,
  })
  @IsString()
  @Length(1, 64)
  totp: string;
}

/** POST /api/v1/me/mfa: the new secret, for the authenticator app. */
export class MfaSetupView {
  @ApiProperty({
    description: `The TOTP secret (base32), for typing it into the app; ${NULL_WHEN_REPLAYED}`,
    example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  })
  secret: string;

  @ApiProperty({
    description: `The same as an otpauth:// URI, to show as a QR code (issuer "Gate service", label the user's email); ${NULL_WHEN_REPLAYED}`,
  })
  otpauth_url: string;
}

/** POST /api/v1/me/mfa/confirm: MFA is on, and the recovery codes, shown this once. */
export class MfaConfirmedView {
  @ApiProperty({ enum: [true] }) mfa_enabled: true;

  @ApiProperty({
    type: String,
    isArray: true,
    minItems: 10,
    maxItems: 10,
    description: `Ten single-use codes, each accepted once in place of a TOTP code; shown only here (only their hashes are kept); ${NULL_WHEN_REPLAYED}`,
  })
  recovery_codes: string[];
}

/** DELETE /api/v1/me/mfa: MFA is off. */
export class MfaDisabledView {
  @ApiProperty({ enum: [false] }) mfa_enabled: false;
}
