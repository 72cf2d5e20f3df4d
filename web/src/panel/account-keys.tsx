import { useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { useI18n } from '../shared/i18n.js';
import { useMay } from './access.js';
import { ListTable } from './list-table.js';
import { useKeyList } from './key-list.js';

/** The account's API keys (for machines: partner systems, terminal servers), named, with their last use; made (shown once) and revoked by owners. */
export function AccountKeys({ credential }: { credential: Credential }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const [name, setName] = useState('');
  const client = gateClient(credential);
  const { keys, create, notices, revokeCell } = useKeyList({
    list: () => dataOf(client.GET('/api/v1/account/api-keys')),
    make: (body: { name: string }) => dataOf(client.POST('/api/v1/account/api-keys', { body })),
    revoke: (id) => dataOf(client.DELETE('/api/v1/account/api-keys/{id}', { params: { path: { id } } })),
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await create({ name: name.trim() })) setName('');
  };

  return (
    <div class="account-keys stack">
      <h2>{t('keys.title')}</h2>
      <p class="muted">{t('keys.explain')}</p>
      {notices}
      {may('keys:write') && (
        <form class="row" aria-label={t('keys.new')} onSubmit={(event) => void submit(event)}>
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
            <td>{may('keys:write') && revokeCell(key)}</td>
          </tr>
        )}
      />
    </div>
  );
}
