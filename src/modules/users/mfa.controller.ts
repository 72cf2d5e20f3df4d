import { Body, Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { Auth, CurrentPrincipal, DuringMfaSetup, Requires } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { MfaCodeDto, MfaConfirmedView, MfaDisabledView, MfaSetupView } from './dto/mfa.dto.js';
import { type MfaCaller, MfaService } from './mfa.service.js';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const GUIDE = `[MFA](${guideUrl('users', 'mfa')})`;
const SESSION_ONLY =
  'Only a person signed in with a session (a key answers 403 FORBIDDEN, `details.required: "session"`), a session that may only set MFA up included.';
const WRONG_CODE =
  'A wrong or malformed code answers 400 VALIDATION_ERROR on `totp` and changes nothing; after 10 wrong codes of the user in 15 ' +
  'minutes, 429 RATE_LIMITED (with Retry-After) for 15 minutes.';

const callerOf = (principal: Principal): MfaCaller => ({
  userId: principal.user!.id,
  email: principal.user!.email,
  sessionId: principal.sessionId!,
  setupOnly: principal.mfaSetupOnly,
});

@ApiTags('sessions')
@ApiExtraModels(MfaCodeDto)
@Auth()
@Controller('api/v1/me/mfa')
export class MfaController {
  constructor(private readonly mfa: MfaService) {}

  @Post()
  @Requires('session')
  @DuringMfaSetup()
  @HttpCode(201)
  @CarriesSecret({ fields: ['secret', 'otpauth_url'], instead: 'start again: POST /api/v1/me/mfa' })
  @ApiOperation({
    summary: 'Start setting two-factor authentication (TOTP) up: a new secret for the authenticator app',
    description:
      'Answers a new secret and its otpauth:// URI (show it as a QR code); MFA is not on until confirmed with a code of the app ' +
      '(POST /api/v1/me/mfa/confirm). Calling it again replaces a secret not yet confirmed. 409 INVALID_STATUS_TRANSITION when MFA ' +
      `is on already. ${SESSION_ONLY} ${GUIDE}`,
  })
  @ApiEnvelope(201, MfaSetupView, {
    secret: SECRET,
    otpauth_url: `otpauth://totp/Gate%20service:ana%40port-a.example?secret=${SECRET}&issuer=Gate%20service&algorithm=SHA1&digits=6&period=30`,
  })
  @ApiErrors(...COMMON_ERRORS, 'INVALID_STATUS_TRANSITION')
  async start(@CurrentPrincipal() principal: Principal): Promise<Envelope<MfaSetupView>> {
    return ok(await this.mfa.start(callerOf(principal)));
  }

  @Post('confirm')
  @Requires('session')
  @DuringMfaSetup()
  @HttpCode(200)
  @CarriesSecret({ fields: ['recovery_codes'], instead: 'turn MFA off (DELETE /api/v1/me/mfa with a code of the app) and on again' })
  @ApiOperation({
    summary: 'Turn two-factor authentication on with a code of the app; answers 10 recovery codes, shown once',
    description:
      'Each recovery code is accepted once in place of a TOTP code (at sign-in, or to turn MFA off). A session that could only set ' +
      'MFA up (the account requires it) becomes a full session at once. 409 INVALID_STATUS_TRANSITION without a set-up started, or ' +
      `when MFA is on already. ${WRONG_CODE} ${SESSION_ONLY} ${GUIDE}`,
  })
  @ApiJsonBody(
    'A code of the authenticator app',
    { $ref: getSchemaPath(MfaCodeDto) },
    { code: { summary: 'The current code', value: { totp: '123456' } } },
  )
  @ApiEnvelope(200, MfaConfirmedView, {
    mfa_enabled: true,
    recovery_codes: [
      'k7p2m-x9qfd',
      'a3hnw-c8rte',
      'p4kzs-m2vgb',
      'w9dqe-h6tya',
      'n5cxr-b7mjk',
      'e2gus-q8fzp',
      'r6vhy-t3kwn',
      'z8mbj-d4xce',
      'u7tpa-g5nrs',
      'c3wke-y9hdm',
    ],
  })
  @ApiErrors(...COMMON_ERRORS, ...BODY_ERRORS, 'INVALID_STATUS_TRANSITION')
  async confirm(@CurrentPrincipal() principal: Principal, @Body() body: MfaCodeDto): Promise<Envelope<MfaConfirmedView>> {
    return ok({ mfa_enabled: true, recovery_codes: await this.mfa.confirm(callerOf(principal), body.totp) });
  }

  @Delete()
  @Requires('session')
  @DuringMfaSetup()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Turn two-factor authentication off with a code of the app or a recovery code',
    description:
      'Forgets the secret and the recovery codes. When the account requires MFA, every session of the user may then only set it up ' +
      `again. 409 INVALID_STATUS_TRANSITION when MFA is off. ${WRONG_CODE} ${SESSION_ONLY} ${GUIDE}`,
  })
  @ApiJsonBody(
    'A code of the authenticator app, or a recovery code',
    { $ref: getSchemaPath(MfaCodeDto) },
    {
      code: { summary: 'A code of the app', value: { totp: '123456' } },
      recovery: { summary: 'A recovery code', value: { totp: 'k7p2m-x9qfd' } },
    },
  )
  @ApiEnvelope(200, MfaDisabledView, { mfa_enabled: false })
  @ApiErrors(...COMMON_ERRORS, ...BODY_ERRORS, 'INVALID_STATUS_TRANSITION')
  async disable(@CurrentPrincipal() principal: Principal, @Body() body: MfaCodeDto): Promise<Envelope<MfaDisabledView>> {
    await this.mfa.disable(callerOf(principal), body.totp);
    return ok({ mfa_enabled: false });
  }
}
