import { useEffect, useState } from 'preact/hooks';
import { api, type Credential } from '../shared/api.js';
import { formatTime } from '../shared/format.js';
import type { Schemas } from '../shared/schemas.js';
import { ListTable } from './list-table.js';

type Account = Schemas['AccountView'];
type KeyView = Schemas['ApiKeyView'];

/** Admin: the accounts, each with its keys; a new key is shown once, a key can be revoked. */
export function Accounts({ credential }: { credential: Credential }) {
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [form, setForm] = useState({ kind: 'terminal', name: '' });
  const [shownKey, setShownKey] = useState<{ account: string; key: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const load = () => api<Account[]>(credential, 'GET', '/api/v1/admin/accounts').then(setAccounts, (e: Error) => setProblem(e.message));
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const created = await api<Schemas['CreatedAccountView']>(credential, 'POST', '/api/v1/admin/accounts', {
        kind: form.kind,
        name: form.name.trim(),
      });
      // The panel sends no Idempotency-Key: an answer is never a replay, so the key is always in it.
      setShownKey({ account: created.name, key: created.api_key! });
      setForm({ ...form, name: '' });
      setProblem(null);
      void load();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  return (
    <div class="accounts">
      {shownKey && (
        <section class="notice" aria-labelledby="new-key-title">
          <h2 id="new-key-title">New API key for {shownKey.account}</h2>
          <p>Copy it now: it is shown only once.</p>
          <code class="secret">{shownKey.key}</code>
          <button type="button" onClick={() => setShownKey(null)}>
            I have copied it
          </button>
        </section>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <form class="row" onSubmit={create} aria-label="New account">
        <label for="account-kind">Kind</label>
        <select id="account-kind" value={form.kind} onChange={(e) => setForm({ ...form, kind: e.currentTarget.value })}>
          <option value="terminal">terminal</option>
          <option value="carrier">carrier</option>
          <option value="admin">admin</option>
        </select>
        <label for="account-name">Name</label>
        <input id="account-name" value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
        <button type="submit" class="primary">
          Create account
        </button>
      </form>
      <ListTable
        caption="Accounts"
        headings={['Name', 'Kind', 'Created']}
        actions="Keys"
        items={accounts}
        itemKey={(account) => account.id}
        empty="No accounts yet."
        row={(account) => (
          <tr>
            <td>{account.name}</td>
            <td>{account.kind}</td>
            <td>{formatTime(account.created_at)}</td>
            <td>
              <button type="button" aria-expanded={open === account.id} onClick={() => setOpen(open === account.id ? null : account.id)}>
                Keys of {account.name}
              </button>
            </td>
          </tr>
        )}
        detail={(account) =>
          open === account.id && (
            <Keys credential={credential} account={account} onIssued={(key) => setShownKey({ account: account.name, key })} />
          )
        }
      />
    </div>
  );
}

function Keys(props: { credential: Credential; account: Account; onIssued: (key: string) => void }) {
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const load = () =>
    api<Schemas['AccountDetailView']>(props.credential, 'GET', `/api/v1/admin/accounts/${props.account.id}`).then((detail) =>
      setKeys(detail.api_keys),
    );
  useEffect(() => void load(), [props.account.id]);
  const issue = async () => {
    const issued = await api<Schemas['IssuedKeyView']>(props.credential, 'POST', `/api/v1/admin/accounts/${props.account.id}/api-keys`);
    props.onIssued(issued.api_key!); // never a replay (no Idempotency-Key): the key is there
    void load();
  };
  const revoke = async (id: string) => {
    await api(props.credential, 'DELETE', `/api/v1/admin/api-keys/${id}`);
    void load();
  };
  return (
    <div class="stack">
      <ul class="keys" aria-label={`API keys of ${props.account.name}`}>
        {(keys ?? []).map((key) => (
          <li key={key.id} class="row">
            <code>{key.prefix}…</code>
            <span class="muted">issued {formatTime(key.created_at)}</span>
            {key.revoked_at ? (
              <span class="muted">revoked {formatTime(key.revoked_at)}</span>
            ) : (
              <button type="button" class="danger" onClick={() => void revoke(key.id)}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => void issue()}>
        Issue a new key
      </button>
    </div>
  );
}
