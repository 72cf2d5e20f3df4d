import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError, explainLayoutInUse } from '../shared/explain.js';
import { type MessageKey, useI18n } from '../shared/i18n.js';
import { useMay } from './access.js';
import { ConfirmDelete } from './confirm-delete.js';
import { LayoutEditor, type LayoutView } from './editor.js';
import type { LayoutSet } from './elements.js';
import { ListTable } from './list-table.js';

const SETS: Record<'terminal' | 'carrier', [LayoutSet, MessageKey, MessageKey][]> = {
  terminal: [
    ['appointment', 'layouts.set.appointment', 'layouts.caption.appointment'],
    ['ticket', 'layouts.set.ticket', 'layouts.caption.ticket'],
  ],
  carrier: [['trip', 'layouts.set.trip', 'layouts.caption.trip']],
};

const REF = /^.{1,100}$/u;

/** The account's layouts of each set: list, create, edit (with the preview), delete. */
export function Layouts({ credential, kind }: { credential: Credential; kind: 'terminal' | 'carrier' }) {
  const may = useMay();
  const i18n = useI18n();
  const { t } = i18n;
  const sets = SETS[kind];
  const [set, setSet] = useState<LayoutSet>(sets[0][0]);
  const [layouts, setLayouts] = useState<LayoutView[] | null>(null);
  const [editing, setEditing] = useState<{ ref: string; layout: LayoutView | null } | null>(null);
  const [newRef, setNewRef] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const client = gateClient(credential);
  const load = () =>
    dataOf(client.GET('/api/v1/layouts/{set}', { params: { path: { set } } })).then(setLayouts, (error) =>
      setMessage({ ok: false, text: explainError(i18n, error) }),
    );
  useEffect(() => {
    setLayouts(null);
    setEditing(null);
    void load();
  }, [set]);

  const create = (event: Event) => {
    event.preventDefault();
    const ref = newRef.trim();
    if (!REF.test(ref)) return setMessage({ ok: false, text: t('layouts.refLength') });
    if (layouts?.some((layout) => layout.layout_ref === ref)) return setMessage({ ok: false, text: t('layouts.exists', { ref }) });
    setMessage(null);
    setNewRef('');
    setEditing({ ref, layout: null });
  };

  const remove = async (ref: string) => {
    setConfirming(null);
    try {
      await dataOf(client.DELETE('/api/v1/layouts/{set}/{layout_ref}', { params: { path: { set, layout_ref: ref } } }));
      setMessage({ ok: true, text: t('layouts.deleted', { ref }) });
      void load();
    } catch (error) {
      const text =
        error instanceof ApiError && error.code === 'LAYOUT_IN_USE' ? explainLayoutInUse(i18n, ref, error) : explainError(i18n, error);
      setMessage({ ok: false, text });
    }
  };

  return (
    <div class="layouts">
      <div class="row set-tabs" role="group" aria-label={t('layouts.setGroup')}>
        {sets.map(([name, label]) => (
          <button key={name} type="button" class="tab" aria-pressed={set === name} onClick={() => setSet(name)}>
            {t(label)}
          </button>
        ))}
      </div>
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      {editing ? (
        <LayoutEditor
          key={`${set}/${editing.ref}`}
          credential={credential}
          set={set}
          layoutRef={editing.ref}
          layout={editing.layout}
          onSaved={() => void load()}
          onClose={() => setEditing(null)}
        />
      ) : (
        <>
          <ListTable
            caption={t(sets.find(([name]) => name === set)![2])}
            headings={[t('layouts.col.ref'), t('layouts.col.name'), t('layouts.col.elements'), t('layouts.col.updated')]}
            actions={t('layouts.col.actions')}
            items={layouts}
            itemKey={(layout) => layout.layout_ref}
            empty={t('layouts.empty')}
            row={(layout) => (
              <tr>
                <td>
                  <code>{layout.layout_ref}</code>
                </td>
                <td>{layout.name ?? '—'}</td>
                <td>
                  {set === 'ticket'
                    ? (layout.elements?.length ?? 0)
                    : t('layouts.cardAndDetail', { card: layout.card_layout?.length ?? 0, detail: layout.modal_layout?.length ?? 0 })}
                </td>
                <td>{i18n.time(layout.updated_at)}</td>
                <td class="row">
                  {may('layouts:write') && (
                    <>
                      <button
                        type="button"
                        aria-label={t('layouts.editNamed', { ref: layout.layout_ref })}
                        onClick={() => setEditing({ ref: layout.layout_ref, layout })}
                      >
                        {t('layouts.edit')}
                      </button>
                      <ConfirmDelete
                        asking={confirming === layout.layout_ref}
                        label={t('layouts.deleteNamed', { ref: layout.layout_ref })}
                        confirm={t('layouts.deleteConfirm', { ref: layout.layout_ref })}
                        onAsk={() => setConfirming(layout.layout_ref)}
                        onConfirm={() => void remove(layout.layout_ref)}
                        onKeep={() => setConfirming(null)}
                      />
                    </>
                  )}
                </td>
              </tr>
            )}
          />
          {may('layouts:write') && (
            <form class="row new-layout" onSubmit={create}>
              <label for="new-layout-ref">{t('layouts.newRef')}</label>
              <input id="new-layout-ref" value={newRef} spellcheck={false} onInput={(e) => setNewRef(e.currentTarget.value)} />
              <button type="submit" class="primary">
                {t('layouts.create')}
              </button>
            </form>
          )}
        </>
      )}
    </div>
  );
}
