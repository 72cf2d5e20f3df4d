import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { LanguageSwitch, type Translator, useI18n } from '../shared/i18n.js';
import { roleWord } from './access.js';
import type { Schemas } from '../shared/schemas.js';

type InvitationView = Schemas['InvitationView'];

/** The shortest password the service takes (docs/users.md#passwords). */
export const MIN_PASSWORD = 12;

/** The invitation's token in the address (`/panel#invitation=<token>`), or null. */
export function invitationTokenOf(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('invitation') || null;
}

function explainInvitation(i18n: Translator, error: unknown): string {
  if (error instanceof ApiError && (error.code === 'INVITATION_EXPIRED' || error.code === 'NOT_FOUND')) return i18n.t('invitation.expired');
  if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') return error.message;
  return explainError(i18n, error);
}

/**
 * Accepting an invitation: who is invited, to which account and as what (`GET /api/v1/invitations/{token}`), then a
 * name and a new password typed twice; the service signs the person in (a session cookie), and the panel opens.
 */
export function Invitation(props: { token: string; onAccepted: (csrfToken: string) => void; onLeave: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  // No one is signed in yet: the session client, so the cookie that accepting sets is kept.
  const client = gateClient({ csrfToken: '' });
  const params = { path: { token: props.token } };
  const [invitation, setInvitation] = useState<InvitationView | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);
  const [form, setForm] = useState({ name: '', password: '', again: '' });
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    dataOf(client.GET('/api/v1/invitations/{token}', { params })).then(
      (found) => {
        setInvitation(found);
        setForm((current) => ({ ...current, name: found.name ?? '' }));
      },
      (error) => setFatal(explainInvitation(i18n, error)),
    );
  }, [props.token]);

  const accept = async (event: Event) => {
    event.preventDefault();
    if (form.password.length < MIN_PASSWORD) return setProblem(t('invitation.tooShort', { min: MIN_PASSWORD }));
    if (form.password !== form.again) return setProblem(t('invitation.mismatch'));
    setBusy(true);
    setProblem(null);
    try {
      const body = { password: form.password, ...(form.name.trim() ? { name: form.name.trim() } : {}) };
      const signed = await dataOf(client.POST('/api/v1/invitations/{token}/accept', { params, body }));
      props.onAccepted(signed.csrf_token);
    } catch (error) {
      setProblem(explainInvitation(i18n, error));
    } finally {
      setBusy(false);
    }
  };

  const accountName = invitation?.account_name ?? '';
  return (
    <main class="panel-signin">
      <div class="row panel-signin-head">
        <h1>{t('invitation.title')}</h1>
        <LanguageSwitch />
      </div>
      {fatal && (
        <>
          <p class="error" role="alert">
            {fatal}
          </p>
          <button type="button" onClick={props.onLeave}>
            {t('invitation.toSignIn')}
          </button>
        </>
      )}
      {!fatal && !invitation && <p role="status">{t('common.loading')}</p>}
      {invitation && (
        <form class="stack" aria-label={t('invitation.title')} onSubmit={(event) => void accept(event)}>
          <p>
            {accountName
              ? t('invitation.who', { email: invitation.email, account: accountName, role: roleWord(t, invitation.role) })
              : t('invitation.whoNoAccount', { email: invitation.email, role: roleWord(t, invitation.role) })}
          </p>
          {/* For password managers: the account the new password belongs to. */}
          <input type="email" name="username" autocomplete="username" value={invitation.email} readOnly hidden />
          <label for="invitation-name">{t('invitation.name')}</label>
          <input
            id="invitation-name"
            autocomplete="name"
            value={form.name}
            onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
          />
          <label for="invitation-password">{t('invitation.password')}</label>
          <input
            id="invitation-password"
            type="password"
            autocomplete="new-password"
            aria-describedby="invitation-rule"
            required
            value={form.password}
            onInput={(e) => setForm({ ...form, password: e.currentTarget.value })}
          />
          <p id="invitation-rule" class="muted">
            {t('invitation.rule', { min: MIN_PASSWORD })}
          </p>
          <label for="invitation-again">{t('invitation.again')}</label>
          <input
            id="invitation-again"
            type="password"
            autocomplete="new-password"
            required
            value={form.again}
            onInput={(e) => setForm({ ...form, again: e.currentTarget.value })}
          />
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          <button type="submit" class="primary" disabled={busy}>
            {t('invitation.accept')}
          </button>
        </form>
      )}
    </main>
  );
}
