import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '../../common/logging/logger.js';
import { actAs } from '../../database/audit-context.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { Account } from '../accounts/account.entity.js';
import { AccountSso } from '../accounts/sso.entity.js';
import { User } from '../accounts/user.entity.js';
import { auditActorOfUser } from '../auth/principal.js';
import { type Client, type Opened, SessionsService } from './sessions.service.js';
import { normaliseEmail } from './user-views.js';

/** What `/panel#sso_error=<code>` says when a sign-in through the provider fails (docs/users.md#single-sign-on). */
export const SSO_ERRORS = [
  'SSO_NOT_CONFIGURED',
  'SSO_PROVIDER_UNAVAILABLE',
  'SSO_LOGIN_EXPIRED',
  'SSO_DENIED',
  'SSO_TOKEN_INVALID',
  'SSO_EMAIL_UNVERIFIED',
  'SSO_EMAIL_NOT_ALLOWED',
  'SSO_USER_DEACTIVATED',
  'SSO_FAILED',
] as const;
export type SsoErrorCode = (typeof SSO_ERRORS)[number];

export class SsoError extends Error {
  constructor(
    readonly code: SsoErrorCode,
    message: string,
    readonly reason?: unknown,
  ) {
    super(message);
    this.name = 'SsoError';
  }
}

/** A sign-in under way at the provider lasts this long. */
export const SSO_LOGIN_MINUTES = 10;
/** A provider's discovered configuration (and its keys, which openid-client keeps with it) is used this long. */
const CLIENT_TTL_MS = 10 * 60_000;
const DISCOVERY_TIMEOUT_S = 10;
const SCOPE = 'openid email profile';

/** A sign-in begun: where to send the browser, and the state its cookie binds to it. */
export interface SsoStart {
  url: string;
  state: string;
}

/**
 * Signing in through an account's OpenID Connect provider (docs/users.md#single-sign-on), with openid-client: the
 * authorization code flow with PKCE (S256), `state` and `nonce`, kept in sso_logins for 10 minutes and used once. The
 * ID token is verified in full: issuer, audience, expiry, nonce and, beyond what openid-client does by default (it
 * trusts the TLS connection to the token endpoint), its signature against the provider's JWKS; unsigned tokens
 * (`alg: none`) are refused. Every failure is an SsoError, whose code the browser is sent to the panel with.
 */
@Injectable()
export class SsoSignIn {
  private readonly clients = new Map<string, { version: number; at: number; config: Promise<oidc.Configuration> }>();

  constructor(
    private readonly db: DataSource,
    private readonly sessions: SessionsService,
    @Inject(APP_CONFIG) private readonly settings: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Finds the account by the address's domain and answers the provider's authorization URL. */
  async start(email: string | undefined, redirectUri: string): Promise<SsoStart> {
    const address = normaliseEmail(typeof email === 'string' ? email : '');
    const at = address.lastIndexOf('@');
    const domain = at > 0 ? address.slice(at + 1) : '';
    const sso = domain
      ? await this.db.getRepository(AccountSso).createQueryBuilder('sso').where(':domain = ANY(sso.email_domains)', { domain }).getOne()
      : null;
    if (!sso) throw new SsoError('SSO_NOT_CONFIGURED', 'No account signs this address in through single sign-on');
    const client = await this.client(sso);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    await this.db.query(`DELETE FROM sso_logins WHERE expires_at < now()`);
    await this.db.query(
      `INSERT INTO sso_logins (state, account_id, code_verifier, nonce, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(mins => $5))`,
      [state, sso.accountId, codeVerifier, nonce, SSO_LOGIN_MINUTES],
    );
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      login_hint: address,
    });
    return { url: url.href, state };
  }

  /**
   * The provider's answer at the callback (`currentUrl`, with its query): the sign-in of `state` (which the browser's
   * cookie must name, so a callback forged into another browser signs nobody in) is taken once, the code exchanged and
   * the ID token verified, and the person it names signed in.
   */
  async finish(currentUrl: URL, browserState: string | undefined, client: Client): Promise<Opened> {
    const state = currentUrl.searchParams.get('state');
    if (!state || state !== browserState) throw new SsoError('SSO_LOGIN_EXPIRED', 'This sign-in was not started in this browser');
    const [login]: { account_id: string; code_verifier: string; nonce: string; live: boolean }[] = await this.db.query(
      `WITH used AS (DELETE FROM sso_logins WHERE state = $1 RETURNING account_id, code_verifier, nonce, expires_at > now() AS live)
       SELECT * FROM used`,
      [state],
    );
    if (!login?.live) throw new SsoError('SSO_LOGIN_EXPIRED', 'This sign-in is unknown, was used already or is over 10 minutes old');
    if (currentUrl.searchParams.has('error'))
      throw new SsoError(
        'SSO_DENIED',
        `The provider answered ${currentUrl.searchParams.get('error')}`,
        currentUrl.searchParams.get('error_description'),
      );
    const sso = await this.db.getRepository(AccountSso).findOneBy({ accountId: login.account_id });
    if (!sso) throw new SsoError('SSO_NOT_CONFIGURED', "The account's single sign-on was removed meanwhile");
    const config = await this.client(sso);

    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        expectedState: state,
        expectedNonce: login.nonce,
        pkceCodeVerifier: login.code_verifier,
        idTokenExpected: true,
      });
    } catch (error) {
      throw grantError(error);
    }
    const claims = tokens.claims();
    if (!claims) throw new SsoError('SSO_TOKEN_INVALID', 'The provider answered no ID token');
    let { email, email_verified: verified, name } = claims as { email?: unknown; email_verified?: unknown; name?: unknown };
    if (typeof email !== 'string') {
      // Many providers put the email in the userinfo answer only: asked with the access token, for the same subject.
      try {
        ({ email, email_verified: verified, name } = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub));
      } catch (error) {
        throw grantError(error);
      }
    }
    if (typeof email !== 'string' || !email.includes('@')) throw new SsoError('SSO_EMAIL_UNVERIFIED', 'The provider gave no email address');
    const unverified = verified === false || verified === 'false';
    return this.signIn(sso, normaliseEmail(email), typeof name === 'string' ? name.slice(0, 255) : null, client, unverified);
  }

  /** Signs the person in: a user of the account, created with the default role when new. */
  private async signIn(sso: AccountSso, email: string, name: string | null, client: Client, unverified: boolean): Promise<Opened> {
    // The person signing in is who the changes below are made by (docs/audit.md#sign-ins); a refusal is recorded.
    actAs({ type: 'user', id: null, name, email });
    try {
      if (unverified) throw new SsoError('SSO_EMAIL_UNVERIFIED', 'The provider gave no verified email address');
      return await this.signInAs(sso, email, name, client);
    } catch (error) {
      if (error instanceof SsoError) {
        const user = await this.db.getRepository(User).findOneBy({ email });
        await this.sessions.failed(email, user, error.code.toLowerCase() as `sso_${string}`, sso.accountId);
      }
      throw error;
    }
  }

  private async signInAs(sso: AccountSso, email: string, name: string | null, client: Client): Promise<Opened> {
    if (!sso.emailDomains.includes(email.slice(email.lastIndexOf('@') + 1)))
      throw new SsoError('SSO_EMAIL_NOT_ALLOWED', "The address's domain is not one of the account's SSO domains");
    const users = this.db.getRepository(User);
    let user = await users.findOneBy({ email });
    if (!user) {
      // Two first sign-ins at once: one inserts, the other finds it.
      await this.db.query(
        `INSERT INTO users (account_id, email, name, role, status) VALUES ($1, $2, $3, $4, 'active') ON CONFLICT (email) DO NOTHING`,
        [sso.accountId, email, name, sso.defaultRole],
      );
      user = (await users.findOneBy({ email }))!;
    }
    if (user.accountId !== sso.accountId) throw new SsoError('SSO_EMAIL_NOT_ALLOWED', 'The address is a user of another account');
    actAs(auditActorOfUser(user));
    if (user.status === 'deactivated') throw new SsoError('SSO_USER_DEACTIVATED', 'The user was deactivated');
    if (user.status === 'invited') {
      // The provider vouches for the address as accepting the invitation would: the user is active, the invitation spent.
      await this.db.transaction(async (manager) => {
        await manager.query(`UPDATE users SET status = 'active' WHERE id = $1 AND status = 'invited'`, [user.id]);
        await manager.query(`UPDATE invitations SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [user.id]);
      });
      user.status = 'active';
    }
    const account = await this.db.getRepository(Account).findOneByOrFail({ id: sso.accountId });
    return this.sessions.open(user, account, client);
  }

  /** The provider's configuration, discovered once per settings version and kept 10 minutes. */
  private async client(sso: AccountSso): Promise<oidc.Configuration> {
    const version = sso.updatedAt.getTime();
    const kept = this.clients.get(sso.accountId);
    if (kept && kept.version === version && Date.now() - kept.at < CLIENT_TTL_MS) return kept.config;
    const config = this.discover(sso);
    this.clients.set(sso.accountId, { version, at: Date.now(), config });
    config.catch(() => {
      if (this.clients.get(sso.accountId)?.config === config) this.clients.delete(sso.accountId);
    });
    return config;
  }

  private async discover(sso: AccountSso): Promise<oidc.Configuration> {
    const insecure = new URL(sso.issuer).protocol === 'http:';
    if (insecure && !this.settings.ssoAllowHttp)
      throw new SsoError('SSO_PROVIDER_UNAVAILABLE', 'The issuer uses http:// and SSO_ALLOW_HTTP is not set');
    const execute = [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])];
    try {
      const found = await oidc.discovery(new URL(sso.issuer), sso.clientId, sso.clientSecret, oidc.ClientSecretBasic(sso.clientSecret), {
        execute,
        timeout: DISCOVERY_TIMEOUT_S,
      });
      const methods = found.serverMetadata().token_endpoint_auth_methods_supported;
      if (!methods || methods.includes('client_secret_basic') || !methods.includes('client_secret_post')) return found;
      // A provider that takes the secret only in the body.
      const config = new oidc.Configuration(
        found.serverMetadata(),
        sso.clientId,
        sso.clientSecret,
        oidc.ClientSecretPost(sso.clientSecret),
      );
      for (const apply of execute) apply(config);
      return config;
    } catch (error) {
      this.logger.warn({ err: error, accountId: sso.accountId, issuer: sso.issuer }, 'SSO: the provider could not be discovered');
      throw new SsoError('SSO_PROVIDER_UNAVAILABLE', 'The provider could not be reached, or its discovery document is not usable', error);
    }
  }
}

/** What a failed exchange or verification is: the provider unreachable, or its answer refused. */
function grantError(error: unknown): SsoError {
  if (error instanceof SsoError) return error;
  const unreachable =
    (error instanceof TypeError && !('code' in error)) ||
    (error instanceof oidc.ClientError && (error.cause instanceof DOMException || error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM'));
  return unreachable
    ? new SsoError('SSO_PROVIDER_UNAVAILABLE', 'The provider could not be reached', error)
    : new SsoError('SSO_TOKEN_INVALID', "The provider's answer did not pass verification", error);
}
