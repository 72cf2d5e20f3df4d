import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import { useMay } from './access.js';
import { ConfirmDelete } from './confirm-delete.js';
import { ListTable } from './list-table.js';
import type { Schemas } from '../shared/schemas.js';
import { ShownOnce } from './shown-once.js';

type KeyView = Schemas['AccountKeyView'];

/** The account's API keys (for machines: partner systems, terminal servers), named, with their last use; made (shown once) and revoked by owners. */
export function AccountKeys({ credential }: { credential: Credential }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const [name, setName] = useState('');
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const client = gateClient(credential);

  const load = () =>
    dataOf(client.GET('/api/v1/account/api-keys')).then(
      (data) => setKeys(data),
      (error) => setProblem(explainError(i18n, error)),
    );
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const made = await dataOf(client.POST('/api/v1/account/api-keys', { body: { name: name.trim() } }));
      setShown({ name: name.trim(), key: made.api_key! });
      setName('');
      setProblem(null);
      void load();
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };
  const revoke = async (key: KeyView) => {
    try {
      await dataOf(client.DELETE('/api/v1/account/api-keys/{id}', { params: { path: { id: key.id } } }));
      setConfirming(null);
      void load();
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };

  return (
    <div class="account-keys stack">
      <h2>{t('keys.title')}</h2>
      <p class="muted">{t('keys.explain')}</p>
      {shown && (
        <ShownOnce
          title={t('keys.new.title', { name: shown.name })}
          value={shown.key}
          copyLabel={t('keys.copy')}
          onDone={() => setShown(null)}
        />
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {may('keys:write') && (
        <form class="row" aria-label={t('keys.new')} onSubmit={(event) => void create(event)}>
          <label for="account-key-name">{t('keys.name')}</label>
          <input id="account-key-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="primary">
            {t('keys.create')}
          </button>
        </form>
      )}
      <ListTable
        caption={t('keys.caption')}
        headings={[t('keys.name'), t('keys.prefix'), t('keys.created'), t('keys.lastUsed')]}
        actions={t('users.actions')}
        items={keys}
        itemKey={(key) => key.id}
        empty={t('keys.empty')}
        row={(key) => (
          <tr>
            <td>{key.name ?? t('keys.unnamed')}</td>
            <td>
              <code>{key.prefix}…</code>
            </td>
            <td>{i18n.time(key.created_at)}</td>
            <td>{key.last_used_at ? i18n.time(key.last_used_at) : t('keys.never')}</td>
            <td>
              {may('keys:write') && (
                <ConfirmDelete
                  asking={confirming === key.id}
                  action={t('keys.revoke')}
                  label={t('keys.revokeNamed', { name: key.name ?? key.id })}
                  confirm={t('keys.revokeConfirm', { name: key.name ?? key.id })}
                  onAsk={() => setConfirming(key.id)}
                  onConfirm={() => void revoke(key)}
                  onKeep={() => setConfirming(null)}
                />
              )}
            </td>
          </tr>
        )}
      />
    </div>
  );
}
