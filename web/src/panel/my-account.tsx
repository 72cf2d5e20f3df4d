import { useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { LanguageSwitch, type Translator, useI18n } from '../shared/i18n.js';
import { qrDataUrl } from '../shared/qr.js';
import { type Me, roleWord } from './access.js';
import { useKeyList } from './key-list.js';
import { ListTable } from './list-table.js';
import type { Schemas } from '../shared/schemas.js';

type MfaSecret = Schemas['MfaSetupView'];
type Permission = NonNullable<Schemas['CreateMyKeyDto']['permissions']>[number];
import { CopyButton } from './shown-once.js';

function explainCode(i18n: Translator, error: unknown): string {
  if (
    error instanceof ApiError &&
    (error.code === 'INVALID_CREDENTIALS' || error.code === 'VALIDATION_ERROR' || error.code === 'MFA_CODE_INVALID')
  )
    return i18n.t('mfa.wrongCode');
  return explainError(i18n, error);
}

/**
 * My account (a person signed in with a session): who they are, MFA (set up with a QR code and a code, the
 * recovery codes shown once, turned off with a code), their own API keys, and signing out everywhere.
 */
export function MyAccount(props: { credential: Credential; me: Me; onChanged: () => void; onSignedOut: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const user = props.me.user!;
  const [problem, setProblem] = useState<string | null>(null);
  const everywhere = async () => {
    try {
      await dataOf(gateClient(props.credential).DELETE('/api/v1/sessions'));
      props.onSignedOut();
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };
  return (
    <div class="my-account stack">
      <section aria-labelledby="me-title">
        <h2 id="me-title">{t('me.title')}</h2>
        <dl class="facts">
          <div>
            <dt>{t('users.name')}</dt>
            <dd>{user.name ?? '—'}</dd>
          </div>
          <div>
            <dt>{t('users.email')}</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>{t('users.role')}</dt>
            <dd>{roleWord(t, user.role)}</dd>
          </div>
        </dl>
      </section>
      <Mfa credential={props.credential} enabled={user.mfa_enabled} onChanged={props.onChanged} />
      <MyKeys credential={props.credential} permissions={props.me.permissions as Permission[]} />
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">{t('me.sessions.title')}</h2>
        <p>{t('me.sessions.explain')}</p>
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="button" class="danger" onClick={() => void everywhere()}>
          {t('me.sessions.everywhere')}
        </button>
      </section>
    </div>
  );
}

/** The only page of a session that may only set MFA up (the account requires MFA and the person has none yet). */
export function MfaSetupOnly(props: { credential: Credential; me: Me; onDone: () => void; onSignOut: () => void }) {
  const { t } = useI18n();
  return (
    <main class="panel-signin">
      <div class="row panel-signin-head">
        <h1>{t('mfa.required.title')}</h1>
        <LanguageSwitch />
      </div>
      {props.me.user?.mfa_enabled ? (
        <p>{t('mfa.required.again')}</p>
      ) : (
        <>
          <p>{t('mfa.required.explain')}</p>
          <Mfa credential={props.credential} enabled={false} onChanged={props.onDone} />
        </>
      )}
      <button type="button" onClick={props.onSignOut}>
        {t('panel.signOut')}
      </button>
    </main>
  );
}

/** MFA: set up (QR code of the otpauth URL, its secret to type, a code to confirm), the recovery codes once, or turning it off. */
function Mfa(props: { credential: Credential; enabled: boolean; onChanged: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [secret, setSecret] = useState<MfaSecret | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const client = gateClient(props.credential);

  const start = async () => {
    try {
      setSecret(await dataOf(client.POST('/api/v1/me/mfa')));
      setProblem(null);
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };
  const confirm = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await dataOf(client.POST('/api/v1/me/mfa/confirm', { body: { totp: code.trim() } }));
      setCodes(answer.recovery_codes);
      setSecret(null);
      setCode('');
      setProblem(null);
    } catch (error) {
      setProblem(explainCode(i18n, error));
    }
  };
  const turnOff = async (event: Event) => {
    event.preventDefault();
    try {
      await dataOf(client.DELETE('/api/v1/me/mfa', { body: { totp: code.trim() } }));
      setCode('');
      setProblem(null);
      setMessage(t('mfa.off.done'));
      props.onChanged();
    } catch (error) {
      setProblem(explainCode(i18n, error));
    }
  };

  const codeField = (id: string) => (
    <>
      <label for={id}>{t('signIn.code.label')}</label>
      <input id={id} inputmode="numeric" autocomplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} />
    </>
  );
  const alert = problem && (
    <p class="error" role="alert">
      {problem}
    </p>
  );

  if (codes) {
    const text = codes.join('\n') + '\n';
    const download = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    return (
      <section class="notice" role="region" aria-label={t('mfa.codes.title')}>
        <h2>{t('mfa.codes.title')}</h2>
        <p>{t('mfa.codes.explain')}</p>
        <ol class="recovery-codes">
          {codes.map((one) => (
            <li key={one}>
              <code>{one}</code>
            </li>
          ))}
        </ol>
        <div class="row">
          <CopyButton text={text} label={t('mfa.codes.copy')} />
          <a href={download} download="gate-recovery-codes.txt">
            {t('mfa.codes.download')}
          </a>
          <button
            type="button"
            onClick={() => {
              URL.revokeObjectURL(download);
              setCodes(null);
              props.onChanged();
            }}
          >
            {t('mfa.codes.done')}
          </button>
        </div>
      </section>
    );
  }
  return (
    <section aria-labelledby="mfa-title" class="stack">
      <h2 id="mfa-title">{t('mfa.title')}</h2>
      {message && (
        <p class="success" role="status">
          {message}
        </p>
      )}
      {props.enabled ? (
        <form class="stack" aria-label={t('mfa.off.title')} onSubmit={(event) => void turnOff(event)}>
          <p>{t('mfa.on')}</p>
          {codeField('mfa-off-code')}
          {alert}
          <button type="submit" class="danger">
            {t('mfa.off.submit')}
          </button>
        </form>
      ) : secret ? (
        <form class="stack" aria-label={t('mfa.setup.title')} onSubmit={(event) => void confirm(event)}>
          <p>{t('mfa.setup.scan')}</p>
          <img src={qrDataUrl(secret.otpauth_url)} alt={t('mfa.setup.qr')} width={200} height={200} />
          <p>
            {t('mfa.setup.orType')} <code data-secret={secret.secret}>{secret.secret}</code>
          </p>
          {codeField('mfa-setup-code')}
          {alert}
          <button type="submit" class="primary">
            {t('mfa.setup.confirm')}
          </button>
        </form>
      ) : (
        <>
          <p>{t('mfa.offNow')}</p>
          {alert}
          <button type="button" class="primary" onClick={() => void start()}>
            {t('mfa.setup.start')}
          </button>
        </>
      )}
    </section>
  );
}

/** A person's own API keys: made with a name, some of their permissions and an expiry, shown once; listed with their last use; revoked. */
function MyKeys({ credential, permissions }: { credential: Credential; permissions: Permission[] }) {
  const i18n = useI18n();
  const { t } = i18n;
  const client = gateClient(credential);
  const [form, setForm] = useState<{ name: string; chosen: Permission[]; expires: string }>({ name: '', chosen: [], expires: '' });
  const { keys, create, notices, revokeCell } = useKeyList({
    list: () => dataOf(client.GET('/api/v1/me/api-keys')),
    make: (body: Schemas['CreateMyKeyDto']) => dataOf(client.POST('/api/v1/me/api-keys', { body })),
    revoke: (id) => dataOf(client.DELETE('/api/v1/me/api-keys/{id}', { params: { path: { id } } })),
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    const made = await create({
      name: form.name.trim(),
      ...(form.chosen.length ? { permissions: form.chosen } : {}),
      ...(form.expires ? { expires_at: new Date(`${form.expires}T23:59:59`).toISOString() } : {}),
    });
    if (made) setForm({ name: '', chosen: [], expires: '' });
  };

  return (
    <section aria-labelledby="my-keys-title" class="stack">
      <h2 id="my-keys-title">{t('myKeys.title')}</h2>
      <p class="muted">{t('myKeys.explain')}</p>
      {notices}
      <form class="stack" aria-label={t('myKeys.new')} onSubmit={(event) => void submit(event)}>
        <label for="my-key-name">{t('keys.name')}</label>
        <input id="my-key-name" required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
        <fieldset>
          <legend>{t('myKeys.permissions')}</legend>
          <div class="permission-grid">
            {permissions.map((permission) => (
              <label key={permission} class="check">
                <input
                  type="checkbox"
                  checked={form.chosen.includes(permission)}
                  onChange={(e) =>
                    setForm({
                      ...form,
                      chosen: e.currentTarget.checked ? [...form.chosen, permission] : form.chosen.filter((p) => p !== permission),
                    })
                  }
                />{' '}
                <code>{permission}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <label for="my-key-expires">{t('myKeys.expires')}</label>
        <input id="my-key-expires" type="date" value={form.expires} onInput={(e) => setForm({ ...form, expires: e.currentTarget.value })} />
        <button type="submit" class="primary">
          {t('keys.create')}
        </button>
      </form>
      <ListTable
        caption={t('myKeys.caption')}
        headings={[t('keys.name'), t('myKeys.permissions'), t('keys.prefix'), t('keys.created'), t('keys.lastUsed'), t('myKeys.expires')]}
        actions={t('users.actions')}
        items={keys}
        itemKey={(key) => key.id}
        empty={t('keys.empty')}
        row={(key) => (
          <tr>
            <td>{key.name ?? '—'}</td>
            <td>{key.permissions?.length ? key.permissions.join(', ') : t('myKeys.all')}</td>
            <td>
              <code>{key.prefix}…</code>
            </td>
            <td>{i18n.time(key.created_at)}</td>
            <td>{key.last_used_at ? i18n.time(key.last_used_at) : t('keys.never')}</td>
            <td>{key.expires_at ? i18n.time(key.expires_at) : t('myKeys.noExpiry')}</td>
            <td>{revokeCell(key)}</td>
          </tr>
        )}
      />
    </section>
  );
}
