import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential, issuesOf } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { type Translator, useI18n } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';
import { ConfirmDelete } from './confirm-delete.js';
import { ListTable } from './list-table.js';

type Account = Schemas['AccountView'];
type KeyView = Schemas['ApiKeyView'];
type GeoFence = Schemas['GeoFenceDto'];

const KINDS = ['terminal', 'carrier', 'admin'] as const;
type Kind = (typeof KINDS)[number];

/** Admin: the accounts, each with its keys (a new key is shown once, a key is revoked after a confirmation) and a terminal's gate geofence. */
export function Accounts({ credential }: { credential: Credential }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [form, setForm] = useState<{ kind: Kind; name: string }>({ kind: 'terminal', name: '' });
  const [shownKey, setShownKey] = useState<{ account: string; key: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const client = gateClient(credential);
  const load = () => dataOf(client.GET('/api/v1/admin/accounts')).then(setAccounts, (e) => setProblem(explainError(i18n, e)));
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const created = await dataOf(client.POST('/api/v1/admin/accounts', { body: { kind: form.kind, name: form.name.trim() } }));
      // The panel sends no Idempotency-Key: an answer is never a replay, so the key is always in it.
      setShownKey({ account: created.name, key: created.api_key! });
      setForm({ ...form, name: '' });
      setProblem(null);
      void load();
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };

  return (
    <div class="accounts">
      {shownKey && (
        <section class="notice" aria-labelledby="new-key-title">
          <h2 id="new-key-title">{t('accounts.newKey.title', { name: shownKey.account })}</h2>
          <p>{t('accounts.newKey.once')}</p>
          <code class="secret">{shownKey.key}</code>
          <button type="button" onClick={() => setShownKey(null)}>
            {t('common.copied')}
          </button>
        </section>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <form class="row" onSubmit={(event) => void create(event)} aria-label={t('accounts.new')}>
        <label for="account-kind">{t('accounts.kind')}</label>
        <select id="account-kind" value={form.kind} onChange={(e) => setForm({ ...form, kind: e.currentTarget.value as Kind })}>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {t(`accounts.kind.${kind}`)}
            </option>
          ))}
        </select>
        <label for="account-name">{t('accounts.name')}</label>
        <input id="account-name" value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
        <button type="submit" class="primary">
          {t('accounts.create')}
        </button>
      </form>
      <ListTable
        caption={t('accounts.caption')}
        headings={[t('accounts.name'), t('accounts.kind'), t('accounts.geofence'), t('accounts.created')]}
        actions={t('accounts.actions')}
        items={accounts}
        itemKey={(account) => account.id}
        empty={t('accounts.empty')}
        row={(account) => (
          <tr>
            <td>{account.name}</td>
            <td>{t(`accounts.kind.${account.kind}`)}</td>
            <td>{account.location ? fenceText(i18n, account.location) : '—'}</td>
            <td>{i18n.time(account.created_at)}</td>
            <td>
              <button type="button" aria-expanded={open === account.id} onClick={() => setOpen(open === account.id ? null : account.id)}>
                {t('accounts.open', { name: account.name })}
              </button>
            </td>
          </tr>
        )}
        detail={(account) =>
          open === account.id && (
            <div class="stack account-detail">
              <Keys credential={credential} account={account} onIssued={(key) => setShownKey({ account: account.name, key })} />
              {account.kind === 'terminal' && <Geofence credential={credential} account={account} onSaved={() => void load()} />}
            </div>
          )
        }
      />
    </div>
  );
}

const fenceText = ({ t }: Translator, fence: GeoFence) => t('accounts.fence', { lat: fence.lat, lng: fence.lng, radius: fence.radius_m });

function Keys(props: { credential: Credential; account: Account; onIssued: (key: string) => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const client = gateClient(props.credential);
  const account = { params: { path: { id: props.account.id } } };
  const load = () =>
    dataOf(client.GET('/api/v1/admin/accounts/{id}', account)).then(
      (detail) => setKeys(detail.api_keys),
      (error) => setProblem(explainError(i18n, error)),
    );
  useEffect(() => void load(), [props.account.id]);
  const act = async (work: () => Promise<void>) => {
    try {
      setProblem(null);
      await work();
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };
  const issue = () =>
    act(async () => {
      const issued = await dataOf(client.POST('/api/v1/admin/accounts/{id}/api-keys', account));
      props.onIssued(issued.api_key!); // never a replay (no Idempotency-Key): the key is there
      void load();
    });
  const revoke = (id: string) =>
    act(async () => {
      setConfirming(null);
      await dataOf(client.DELETE('/api/v1/admin/api-keys/{id}', { params: { path: { id } } }));
      void load();
    });
  return (
    <div class="stack">
      <h3>{t('accounts.keys')}</h3>
      <ul class="keys" aria-label={t('accounts.keysOf', { name: props.account.name })}>
        {(keys ?? []).map((key) => (
          <li key={key.id} class="row">
            <code>{key.prefix}…</code>
            <span class="muted">{t('accounts.issued', { time: i18n.time(key.created_at) })}</span>
            {key.revoked_at ? (
              <span class="muted">{t('accounts.revoked', { time: i18n.time(key.revoked_at) })}</span>
            ) : (
              <ConfirmDelete
                asking={confirming === key.id}
                action={t('accounts.revoke')}
                label={t('accounts.revokeKey', { prefix: key.prefix })}
                confirm={t('accounts.revokeConfirm', { prefix: key.prefix })}
                onAsk={() => setConfirming(key.id)}
                onConfirm={() => void revoke(key.id)}
                onKeep={() => setConfirming(null)}
              />
            )}
          </li>
        ))}
      </ul>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="row">
        <button type="button" onClick={() => void issue()}>
          {t('accounts.issue')}
        </button>
      </div>
    </div>
  );
}

/** A terminal's gate geofence (where trips arrive when its drivers check in): set, moved or removed. */
function Geofence(props: { credential: Credential; account: Account; onSaved: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const fence = props.account.location;
  const [values, setValues] = useState({
    lat: fence ? String(fence.lat) : '',
    lng: fence ? String(fence.lng) : '',
    radius_m: fence ? String(fence.radius_m) : '',
  });
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async (location: GeoFence | null) => {
    setMessage(null);
    try {
      await dataOf(
        gateClient(props.credential).PATCH('/api/v1/admin/accounts/{id}', {
          params: { path: { id: props.account.id } },
          body: { location },
        }),
      );
      setMessage({ ok: true, text: location ? t('accounts.fenceSaved') : t('accounts.fenceRemoved') });
      props.onSaved();
    } catch (error) {
      const issues = error instanceof ApiError ? issuesOf(error) : [];
      setMessage({
        ok: false,
        text: issues.length ? issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ') : explainError(i18n, error),
      });
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const number = (text: string) => (text.trim() === '' ? NaN : Number(text.replace(',', '.')));
    const location = { lat: number(values.lat), lng: number(values.lng), radius_m: number(values.radius_m) };
    if (!Object.values(location).every(Number.isFinite)) return setMessage({ ok: false, text: t('accounts.fenceNumbers') });
    void save(location);
  };
  const field = (name: keyof typeof values, label: string) => (
    <div class="stack">
      <label for={`fence-${props.account.id}-${name}`}>{label}</label>
      <input
        id={`fence-${props.account.id}-${name}`}
        inputMode="decimal"
        value={values[name]}
        onInput={(e) => setValues({ ...values, [name]: e.currentTarget.value })}
      />
    </div>
  );
  return (
    <form class="stack geofence" onSubmit={submit} aria-label={t('accounts.fenceOf', { name: props.account.name })}>
      <h3>{t('accounts.geofence')}</h3>
      <p class="muted">{t('accounts.fenceHint')}</p>
      <div class="row">
        {field('lat', t('accounts.lat'))}
        {field('lng', t('accounts.lng'))}
        {field('radius_m', t('accounts.radius'))}
      </div>
      <div class="row">
        <button type="submit" class="primary">
          {t('accounts.fenceSave')}
        </button>
        {fence && (
          <button type="button" class="danger" onClick={() => void save(null)}>
            {t('accounts.fenceRemove')}
          </button>
        )}
        {message && (
          <span class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </span>
        )}
      </div>
    </form>
  );
}
