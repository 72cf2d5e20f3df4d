import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError, type ValidationIssue } from '../../common/errors/app-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AccountSso } from '../accounts/sso.entity.js';
import { isRoleOf, rolesOf } from '../auth/permissions.js';
import type { AccountKind } from '../auth/principal.js';
import type { SsoSettingsDto, SsoSettingsView } from './dto/sso.dto.js';

/** The path the provider sends the browser back to; the redirect URI registered at the provider. */
export const SSO_CALLBACK_PATH = '/sso/callback';

export function ssoView(sso: AccountSso, origin: string): SsoSettingsView {
  return {
    issuer: sso.issuer,
    client_id: sso.clientId,
    email_domains: sso.emailDomains,
    default_role: sso.defaultRole,
    passwords_allowed: sso.passwordsAllowed,
    redirect_uri: `${origin}${SSO_CALLBACK_PATH}`,
    created_at: sso.createdAt.toISOString(),
    updated_at: sso.updatedAt.toISOString(),
  };
}

/** The issuer's problem, or null: a URL without query or fragment, https:// unless SSO_ALLOW_HTTP. */
export function issuerProblem(issuer: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be a URL such as https://login.example.com';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    return allowHttp ? 'must use https:// or http://' : 'must use https:// (http:// only with SSO_ALLOW_HTTP=true, for development)';
  if (url.username || url.password || url.search || url.hash) return 'must have no credentials, query or fragment';
  return null;
}

/**
 * An account's single sign-on settings (docs/users.md#single-sign-on), kept by its owners. An email domain belongs to
 * one account's SSO only: settings are written under a lock of the table, so two accounts claiming one domain at once
 * cannot both have it.
 */
@Injectable()
export class AccountSsoService {
  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(accountId: string): Promise<AccountSso> {
    const sso = await this.db.getRepository(AccountSso).findOneBy({ accountId });
    if (!sso) throw new AppError('NOT_FOUND', 'This account has no single sign-on set up');
    return sso;
  }

  /** Sets the account's SSO (created: true) or replaces it; a secret left out keeps the one stored. */
  async put(accountId: string, kind: AccountKind, input: SsoSettingsDto): Promise<{ sso: AccountSso; created: boolean }> {
    const issues: ValidationIssue[] = [];
    const issuer = input.issuer.trim();
    const problem = issuerProblem(issuer, this.config.ssoAllowHttp);
    if (problem) issues.push({ path: 'issuer', message: problem });
    if (!isRoleOf(kind, input.default_role))
      issues.push({ path: 'default_role', message: `must be one of the roles of a ${kind} account: ${rolesOf(kind).join(', ')}` });
    if (issues.length) throw AppError.validation(issues);
    const domains = [...new Set(input.email_domains.map((domain) => domain.trim().toLowerCase()))];

    return this.db.transaction(async (manager) => {
      await manager.query('LOCK TABLE account_sso IN SHARE ROW EXCLUSIVE MODE');
      const taken: { domain: string }[] = await manager.query(
        `SELECT DISTINCT domain FROM account_sso, unnest(email_domains) AS domain
          WHERE account_id <> $1 AND domain = ANY($2::text[]) ORDER BY domain`,
        [accountId, domains],
      );
      if (taken.length) {
        const refs = taken.map((row) => row.domain);
        throw new AppError('DUPLICATE_KEY', `Email domains that another account signs in through its SSO: ${refs.join(', ')}`, { refs });
      }
      const existing = await manager.findOneBy(AccountSso, { accountId });
      const secret = input.client_secret ?? existing?.clientSecret;
      if (!secret) throw AppError.validation([{ path: 'client_secret', message: 'is required when setting single sign-on up' }]);
      const fields = {
        issuer,
        clientId: input.client_id,
        clientSecret: secret,
        emailDomains: domains,
        defaultRole: input.default_role as AccountSso['defaultRole'],
        passwordsAllowed: input.passwords_allowed ?? true,
      };
      if (existing) await manager.update(AccountSso, { accountId }, { ...fields, updatedAt: () => 'now()' });
      else await manager.insert(AccountSso, { accountId, ...fields });
      return { sso: (await manager.findOneBy(AccountSso, { accountId }))!, created: !existing };
    });
  }

  async remove(accountId: string): Promise<void> {
    const { affected } = await this.db.getRepository(AccountSso).delete({ accountId });
    if (!affected) throw new AppError('NOT_FOUND', 'This account has no single sign-on set up');
  }
}
