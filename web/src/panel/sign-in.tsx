import { useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { LanguageSwitch, type MessageKey, type Translator, useI18n } from '../shared/i18n.js';

type Mode = 'password' | 'code' | 'sso' | 'key';

/** The errors `/sso/callback` sends back to `/panel#sso_error=<code>`, in words. */
const SSO_ERRORS: Record<string, MessageKey> = {
  SSO_NOT_CONFIGURED: 'signIn.sso.error.notConfigured',
  SSO_PROVIDER_UNAVAILABLE: 'signIn.sso.error.unavailable',
  SSO_LOGIN_EXPIRED: 'signIn.sso.error.expired',
  SSO_DENIED: 'signIn.sso.error.denied',
  SSO_TOKEN_INVALID: 'signIn.sso.error.failed',
  SSO_EMAIL_UNVERIFIED: 'signIn.sso.error.unverified',
  SSO_EMAIL_NOT_ALLOWED: 'signIn.sso.error.notAllowed',
  SSO_USER_DEACTIVATED: 'signIn.sso.error.deactivated',
};

/** The words for `#sso_error=<code>` in the address, or null when there is none. */
export function ssoErrorOf(hash: string): { code: string } | null {
  const code = new URLSearchParams(hash.replace(/^#/, '')).get('sso_error');
  return code ? { code } : null;
}

function ssoProblem({ t }: Translator, code: string): string {
  return t(SSO_ERRORS[code] ?? 'signIn.sso.error.failed');
}

/** Why a sign-in failed, in words; null when the answer asks for the next step instead. */
function signInProblem(i18n: Translator, error: unknown, mode: Mode): string {
  const { t } = i18n;
  if (!(error instanceof ApiError)) return explainError(i18n, error);
  switch (error.code) {
    case 'INVALID_CREDENTIALS':
      return t(mode === 'code' ? 'signIn.error.code' : 'signIn.error.credentials');
    case 'RATE_LIMITED':
      return error.retryAfter
        ? t('signIn.error.rateLimited', { minutes: Math.max(1, Math.ceil(error.retryAfter / 60)) })
        : t('error.RATE_LIMITED');
    case 'SSO_REQUIRED':
      return t('signIn.error.ssoRequired');
    case 'UNAUTHORIZED':
      return t('panel.signIn.unknownKey');
    default:
      return explainError(i18n, error);
  }
}

/**
 * The sign-in page: email and password (then the authenticator's code when the service asks for it, MFA_REQUIRED),
 * "Sign in with SSO" (the email decides the account's identity provider), or an API key for integrators. Each form
 * follows the conventions password managers and screen readers rely on (autocomplete, labels, Enter submits).
 */
export function SignIn(props: { problem: { code: string } | string | null; onSignedIn: (credential: Credential) => Promise<void> }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [mode, setMode] = useState<Mode>(props.problem && typeof props.problem === 'object' ? 'sso' : 'password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(() =>
    props.problem === null ? null : typeof props.problem === 'string' ? props.problem : ssoProblem(i18n, props.problem.code),
  );

  const switchTo = (next: Mode) => {
    setProblem(null);
    setCode('');
    setMode(next);
  };

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(null);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };

  const signIn = (event: Event) => {
    event.preventDefault();
    const current = mode;
    if (!email.trim() || !password || (current === 'code' && !code.trim())) return;
    void run(async () => {
      const body = { email: email.trim(), password, ...(current === 'code' ? { totp: code.replace(/\s+/g, '') } : {}) };
      try {
        const signed = await dataOf(gateClient({ csrfToken: '' }).POST('/api/v1/sessions', { body }));
        setPassword('');
        await props.onSignedIn({ csrfToken: signed.csrf_token });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'MFA_REQUIRED') return switchTo('code');
        if (error instanceof ApiError && error.code === 'MFA_SETUP_REQUIRED') {
          // The account requires MFA and this person has none yet: a session that may only set it up.
          const csrf = (error.details as { csrf_token?: string } | undefined)?.csrf_token ?? '';
          return props.onSignedIn({ csrfToken: csrf });
        }
        if (error instanceof ApiError && error.code === 'SSO_REQUIRED') setMode('sso');
        setProblem(signInProblem(i18n, error, current));
      }
    });
  };

  const signInWithKey = (event: Event) => {
    event.preventDefault();
    if (!key.trim()) return;
    void run(async () => {
      try {
        await props.onSignedIn({ apiKey: key.trim() });
      } catch (error) {
        setProblem(signInProblem(i18n, error, 'key'));
      }
    });
  };

  const startSso = (event: Event) => {
    event.preventDefault();
    if (!email.trim()) return;
    location.assign(`/sso/start?email=${encodeURIComponent(email.trim())}`);
  };

  const alert = problem && (
    <p class="error" role="alert">
      {problem}
    </p>
  );
  const emailField = (
    <>
      <label for="sign-in-email">{t('signIn.email')}</label>
      <input
        id="sign-in-email"
        name="username"
        type="email"
        autocomplete="username"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
    </>
  );

  return (
    <main class="panel-signin">
      <div class="row panel-signin-head">
        <h1>{t('panel.title')}</h1>
        <LanguageSwitch />
      </div>
      <p class="muted">{t('panel.signIn.who')}</p>

      {(mode === 'password' || mode === 'code') && (
        <form class="stack" aria-label={t('signIn.title')} onSubmit={signIn}>
          {mode === 'password' ? (
            <>
              {emailField}
              <label for="sign-in-password">{t('signIn.password')}</label>
              <input
                id="sign-in-password"
                name="password"
                type="password"
                autocomplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </>
          ) : (
            <>
              <p>{t('signIn.code.asked', { email: email.trim() })}</p>
              <label for="sign-in-code">{t('signIn.code.label')}</label>
              <input
                id="sign-in-code"
                name="one-time-code"
                type="text"
                inputmode="numeric"
                autocomplete="one-time-code"
                aria-describedby="sign-in-code-hint"
                required
                autoFocus
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
              <p id="sign-in-code-hint" class="muted">
                {t('signIn.code.hint')}
              </p>
            </>
          )}
          {alert}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t('panel.signIn.busy') : t('panel.signIn.submit')}
          </button>
          {mode === 'code' && (
            <button type="button" class="quiet" onClick={() => switchTo('password')}>
              {t('signIn.back')}
            </button>
          )}
        </form>
      )}

      {mode === 'sso' && (
        <form class="stack" aria-label={t('signIn.sso.title')} onSubmit={startSso}>
          <p>{t('signIn.sso.explain')}</p>
          {emailField}
          {alert}
          <button type="submit" class="primary">
            {t('signIn.sso.continue')}
          </button>
          <button type="button" class="quiet" onClick={() => switchTo('password')}>
            {t('signIn.back')}
          </button>
        </form>
      )}

      {mode === 'key' && (
        <form class="stack" aria-label={t('signIn.key.title')} onSubmit={signInWithKey}>
          <p>{t('signIn.key.explain')}</p>
          <label for="api-key">{t('panel.signIn.key')}</label>
          <input id="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          {alert}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t('panel.signIn.busy') : t('panel.signIn.submit')}
          </button>
          <p class="muted">{t('panel.signIn.kept')}</p>
          <button type="button" class="quiet" onClick={() => switchTo('password')}>
            {t('signIn.back')}
          </button>
        </form>
      )}

      {mode === 'password' && (
        <div class="row sign-in-others">
          <button type="button" onClick={() => switchTo('sso')}>
            {t('signIn.sso.button')}
          </button>
          <button type="button" onClick={() => switchTo('key')}>
            {t('signIn.key.button')}
          </button>
        </div>
      )}
      <FirstRun />
    </main>
  );
}

/** For whoever has no account yet: where one comes from (the demo seed, the operator CLI, or an admin). */
function FirstRun() {
  const { t } = useI18n();
  return (
    <section class="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">{t('panel.firstRun.title')}</h2>
      <p>{t('panel.firstRun.seed')}</p>
      <pre>
        <code>npm run seed:demo</code>
      </pre>
      <p>{t('panel.firstRun.cli')}</p>
      <pre>
        <code>npm run cli -- account:create --kind terminal --name "Port A"</code>
      </pre>
      <p class="muted">{t('panel.firstRun.stopped')}</p>
      <p class="muted">{t('panel.firstRun.admin')}</p>
    </section>
  );
}
