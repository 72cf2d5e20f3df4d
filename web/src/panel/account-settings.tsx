import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language, useI18n } from '../shared/i18n.js';
import { type AccountKind, roleWord, useMay } from './access.js';
import { ConfirmDelete } from './confirm-delete.js';
import type { Schemas } from '../shared/schemas.js';
import { ROLES_OF } from './users.js';

type Role = Schemas['SsoSettingsDto']['default_role'];

/**
 * The account's settings (owners change them; `account:write`): its name, the language of its mail, whether every
 * person must use MFA, and single sign-on through the organisation's OpenID Connect provider.
 */
export function AccountSettings({ credential, kind }: { credential: Credential; kind: AccountKind }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const writable = may('account:write');
  const [form, setForm] = useState<{ name: string; language: Language; require_mfa: boolean } | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const client = gateClient(credential);
  useEffect(() => {
    dataOf(client.GET('/api/v1/account')).then(
      (account) => setForm({ name: account.name, language: account.language, require_mfa: account.require_mfa }),
      (error) => setMessage({ ok: false, text: explainError(i18n, error) }),
    );
  }, []);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!form) return;
    try {
      await dataOf(client.PATCH('/api/v1/account', { body: { ...form, name: form.name.trim() } }));
      setMessage({ ok: true, text: t('common.saved') });
    } catch (error) {
      setMessage({ ok: false, text: explainError(i18n, error) });
    }
  };

  return (
    <div class="account-settings stack">
      <section aria-labelledby="account-title" class="stack">
        <h2 id="account-title">{t('account.title')}</h2>
        {message && (
          <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
        {!form ? (
          <p role="status">{t('common.loading')}</p>
        ) : (
          <form class="stack" aria-label={t('account.title')} onSubmit={(event) => void save(event)}>
            <fieldset disabled={!writable} class="stack">
              <label for="account-name-field">{t('account.name')}</label>
              <input id="account-name-field" value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
              <label for="account-language">{t('account.language')}</label>
              <select
                id="account-language"
                value={form.language}
                onChange={(e) => setForm({ ...form, language: e.currentTarget.value as Language })}
              >
                {LANGUAGES.map((code) => (
                  <option key={code} value={code} lang={code}>
                    {LANGUAGE_NAMES[code]}
                  </option>
                ))}
              </select>
              <label class="check">
                <input
                  type="checkbox"
                  checked={form.require_mfa}
                  onChange={(e) => setForm({ ...form, require_mfa: e.currentTarget.checked })}
                />{' '}
                {t('account.requireMfa')}
              </label>
              <p class="muted">{t('account.requireMfaHint')}</p>
            </fieldset>
            {writable && (
              <button type="submit" class="primary">
                {t('account.save')}
              </button>
            )}
          </form>
        )}
      </section>
      <Sso credential={credential} kind={kind} writable={writable} />
    </div>
  );
}

/** Single sign-on: the provider (issuer, client id and secret, never read back), the email domains it signs in, the role of new people, and whether passwords still work. */
function Sso({ credential, kind, writable }: { credential: Credential; kind: AccountKind; writable: boolean }) {
  const i18n = useI18n();
  const { t } = i18n;
  const roles = ROLES_OF[kind];
  const client = gateClient(credential);
  const empty = {
    issuer: '',
    client_id: '',
    client_secret: '',
    domains: '',
    default_role: roles[roles.length - 1],
    passwords_allowed: true,
  };
  const [form, setForm] = useState(empty);
  const [configured, setConfigured] = useState(false);
  const [redirect, setRedirect] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  useEffect(() => {
    dataOf(client.GET('/api/v1/account/sso')).then(
      (sso) => {
        setConfigured(true);
        setRedirect(sso.redirect_uri);
        setForm({
          ...empty,
          issuer: sso.issuer,
          client_id: sso.client_id,
          domains: sso.email_domains.join(', '),
          default_role: sso.default_role,
          passwords_allowed: sso.passwords_allowed,
        });
      },
      (error) => {
        if (!(error instanceof ApiError && error.code === 'NOT_FOUND')) setMessage({ ok: false, text: explainError(i18n, error) });
      },
    );
  }, []);

  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const body: Schemas['SsoSettingsDto'] = {
        issuer: form.issuer.trim(),
        client_id: form.client_id.trim(),
        // Left out when replacing settings that exist: the stored secret is kept.
        ...(form.client_secret || !configured ? { client_secret: form.client_secret } : {}),
        email_domains: form.domains
          .split(',')
          .map((domain) => domain.trim())
          .filter(Boolean),
        default_role: form.default_role,
        passwords_allowed: form.passwords_allowed,
      };
      const saved = await dataOf(client.PUT('/api/v1/account/sso', { body }));
      setConfigured(true);
      setRedirect(saved.redirect_uri);
      setForm({ ...form, client_secret: '' });
      setMessage({ ok: true, text: t('common.saved') });
    } catch (error) {
      setMessage({ ok: false, text: explainError(i18n, error) });
    }
  };

  const remove = async () => {
    try {
      await dataOf(client.DELETE('/api/v1/account/sso'));
      setConfigured(false);
      setRedirect(null);
      setRemoving(false);
      setForm(empty);
      setMessage({ ok: true, text: t('sso.removed') });
    } catch (error) {
      setMessage({ ok: false, text: explainError(i18n, error) });
    }
  };

  return (
    <section aria-labelledby="sso-title" class="stack">
      <h2 id="sso-title">{t('sso.title')}</h2>
      <p class="muted">{configured ? t('sso.configured') : t('sso.none')}</p>
      {redirect && <p>{t('sso.redirect', { uri: redirect })}</p>}
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      <form class="stack" aria-label={t('sso.title')} onSubmit={(event) => void save(event)}>
        <fieldset disabled={!writable} class="stack">
          <label for="sso-issuer">{t('sso.issuer')}</label>
          <input
            id="sso-issuer"
            type="url"
            required
            value={form.issuer}
            onInput={(e) => setForm({ ...form, issuer: e.currentTarget.value })}
          />
          <label for="sso-client">{t('sso.clientId')}</label>
          <input id="sso-client" required value={form.client_id} onInput={(e) => setForm({ ...form, client_id: e.currentTarget.value })} />
          <label for="sso-secret">{t('sso.clientSecret')}</label>
          <input
            id="sso-secret"
            type="password"
            autocomplete="off"
            required={!configured}
            aria-describedby="sso-secret-hint"
            value={form.client_secret}
            onInput={(e) => setForm({ ...form, client_secret: e.currentTarget.value })}
          />
          <p id="sso-secret-hint" class="muted">
            {configured ? t('sso.secretKeep') : t('sso.secretHint')}
          </p>
          <label for="sso-domains">{t('sso.domains')}</label>
          <input
            id="sso-domains"
            required
            aria-describedby="sso-domains-hint"
            value={form.domains}
            onInput={(e) => setForm({ ...form, domains: e.currentTarget.value })}
          />
          <p id="sso-domains-hint" class="muted">
            {t('sso.domainsHint')}
          </p>
          <label for="sso-role">{t('sso.defaultRole')}</label>
          <select
            id="sso-role"
            value={form.default_role}
            onChange={(e) => setForm({ ...form, default_role: e.currentTarget.value as Role })}
          >
            {roles.map((role) => (
              <option key={role} value={role}>
                {roleWord(t, role)}
              </option>
            ))}
          </select>
          <label class="check">
            <input
              type="checkbox"
              checked={form.passwords_allowed}
              onChange={(e) => setForm({ ...form, passwords_allowed: e.currentTarget.checked })}
            />{' '}
            {t('sso.passwordsAllowed')}
          </label>
        </fieldset>
        {writable && (
          <div class="row">
            <button type="submit" class="primary">
              {t('sso.save')}
            </button>
            {configured && (
              <ConfirmDelete
                asking={removing}
                action={t('sso.remove')}
                label={t('sso.remove')}
                confirm={t('sso.removeConfirm')}
                onAsk={() => setRemoving(true)}
                onConfirm={() => void remove()}
                onKeep={() => setRemoving(false)}
              />
            )}
          </div>
        )}
      </form>
    </section>
  );
}
