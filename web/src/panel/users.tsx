import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { type Translator, useI18n } from '../shared/i18n.js';
import { type AccountKind, roleWord, useMay } from './access.js';
import { ListTable } from './list-table.js';
import type { Schemas } from '../shared/schemas.js';
import { CopyButton } from './shown-once.js';

type UserView = Schemas['UserView'];
type Role = Schemas['CreateUserDto']['role'];
type Invited = Schemas['InvitedUserView'];

/** The roles an account of each kind gives its people, the owner first (docs/users.md#roles). */
export const ROLES_OF: Record<AccountKind, Role[]> = {
  terminal: ['owner', 'planner', 'gate', 'viewer'],
  carrier: ['owner', 'dispatcher', 'viewer'],
  admin: [],
};

/** Why a change of people was refused, in words. */
export function explainPeople(i18n: Translator, error: unknown): string {
  const { t } = i18n;
  if (error instanceof ApiError) {
    if (error.code === 'LAST_OWNER') return t('users.error.lastOwner');
    if (error.code === 'DUPLICATE_KEY') return t('users.error.duplicate');
    if (error.code === 'VALIDATION_ERROR') return error.message;
  }
  return explainError(i18n, error);
}

/**
 * Users (owners): the account's people with their role and status; an invitation (its link shown, to copy and hand
 * over, and mailed when the service sends mail), a new invitation, a change of role, deactivating and reactivating.
 */
export function Users({ credential, kind }: { credential: Credential; kind: AccountKind }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const roles = ROLES_OF[kind];
  const [users, setUsers] = useState<UserView[] | null>(null);
  const [form, setForm] = useState<{ email: string; name: string; role: Role }>({ email: '', name: '', role: roles[roles.length - 1] });
  const client = gateClient(credential);
  const [invited, setInvited] = useState<(Invited & { email: string }) | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const load = () =>
    dataOf(client.GET('/api/v1/users')).then(
      (data) => setUsers(data),
      (error) => setMessage({ ok: false, text: explainPeople(i18n, error) }),
    );
  useEffect(() => void load(), []);

  const invite = async (event: Event) => {
    event.preventDefault();
    try {
      const body = { email: form.email.trim(), role: form.role, ...(form.name.trim() ? { name: form.name.trim() } : {}) };
      const answer = await dataOf(client.POST('/api/v1/users', { body }));
      setInvited({ ...answer, email: answer.user.email });
      setForm({ ...form, email: '', name: '' });
      setMessage(null);
      void load();
    } catch (error) {
      setMessage({ ok: false, text: explainPeople(i18n, error) });
    }
  };

  const change = async (user: UserView, body: { role?: Role; status?: 'active' | 'deactivated' }, done: string) => {
    try {
      await dataOf(client.PATCH('/api/v1/users/{id}', { params: { path: { id: user.id } }, body }));
      setMessage({ ok: true, text: done });
      void load();
    } catch (error) {
      setMessage({ ok: false, text: explainPeople(i18n, error) });
      void load();
    }
  };

  const resend = async (user: UserView) => {
    try {
      const answer = await dataOf(client.POST('/api/v1/users/{id}/invitation', { params: { path: { id: user.id } } }));
      setInvited({ ...answer, email: user.email });
      setMessage(null);
    } catch (error) {
      setMessage({ ok: false, text: explainPeople(i18n, error) });
    }
  };

  return (
    <div class="users stack">
      {invited && (
        <section class="notice" role="region" aria-label={t('users.invited.title', { email: invited.email })}>
          <h2>{t('users.invited.title', { email: invited.email })}</h2>
          {invited.mailed && <p>{t('users.invited.mailed', { email: invited.email })}</p>}
          {invited.invitation_url && (
            <>
              <p>{t('users.invited.explain', { time: i18n.time(invited.expires_at) })}</p>
              <p>
                <a href={invited.invitation_url}>{t('users.invited.link')}</a>
              </p>
              <code class="secret">{invited.invitation_url}</code>
            </>
          )}
          <div class="row">
            {invited.invitation_url && <CopyButton text={invited.invitation_url} label={t('users.invited.copy')} />}
            <button type="button" onClick={() => setInvited(null)}>
              {t('common.close')}
            </button>
          </div>
        </section>
      )}
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      {may('users:write') && (
        <form class="stack invite" aria-labelledby="invite-title" onSubmit={(event) => void invite(event)}>
          <h2 id="invite-title">{t('users.invite.title')}</h2>
          <label for="invite-email">{t('users.email')}</label>
          <input
            id="invite-email"
            type="email"
            required
            autocomplete="off"
            value={form.email}
            onInput={(e) => setForm({ ...form, email: e.currentTarget.value })}
          />
          <label for="invite-name">{t('users.nameOptional')}</label>
          <input id="invite-name" autocomplete="off" value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
          <label for="invite-role">{t('users.role')}</label>
          <select id="invite-role" value={form.role} onChange={(e) => setForm({ ...form, role: e.currentTarget.value as Role })}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {roleWord(t, role)}
              </option>
            ))}
          </select>
          <button type="submit" class="primary">
            {t('users.invite.submit')}
          </button>
        </form>
      )}
      <ListTable
        caption={t('users.caption')}
        headings={[t('users.name'), t('users.email'), t('users.role'), t('users.status'), t('users.mfa'), t('users.lastSignIn')]}
        actions={t('users.actions')}
        items={users}
        itemKey={(user) => user.id}
        empty={t('users.empty')}
        row={(user) => {
          const who = user.name || user.email;
          return (
            <tr>
              <td>{user.name ?? '—'}</td>
              <td>{user.email}</td>
              <td>
                {may('users:write') ? (
                  <select
                    aria-label={t('users.roleOf', { who })}
                    value={user.role}
                    onChange={(e) =>
                      void change(
                        user,
                        { role: e.currentTarget.value as Role },
                        t('users.roleChanged', { who, role: roleWord(t, e.currentTarget.value) }),
                      )
                    }
                  >
                    {roles.map((role) => (
                      <option key={role} value={role}>
                        {roleWord(t, role)}
                      </option>
                    ))}
                  </select>
                ) : (
                  roleWord(t, user.role)
                )}
              </td>
              <td>{t(`users.status.${user.status}`)}</td>
              <td>{user.mfa_enabled ? t('users.mfaOn') : t('users.mfaOff')}</td>
              <td>{i18n.time(user.last_sign_in_at)}</td>
              <td class="row">
                {may('users:write') && user.status === 'invited' && (
                  <button type="button" aria-label={t('users.resendTo', { who })} onClick={() => void resend(user)}>
                    {t('users.resend')}
                  </button>
                )}
                {may('users:write') && user.status !== 'deactivated' && (
                  <button
                    type="button"
                    class="danger"
                    aria-label={t('users.deactivateNamed', { who })}
                    onClick={() => void change(user, { status: 'deactivated' }, t('users.deactivated', { who }))}
                  >
                    {t('users.deactivate')}
                  </button>
                )}
                {may('users:write') && user.status === 'deactivated' && (
                  <button
                    type="button"
                    aria-label={t('users.reactivateNamed', { who })}
                    onClick={() => void change(user, { status: 'active' }, t('users.reactivated', { who }))}
                  >
                    {t('users.reactivate')}
                  </button>
                )}
              </td>
            </tr>
          );
        }}
      />
    </div>
  );
}
