import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Credential } from '../shared/api.js';
import { explainLayoutInUse } from '../shared/explain.js';
import { formatTime } from '../shared/format.js';
import { ConfirmDelete } from './confirm-delete.js';
import { LayoutEditor, type LayoutView } from './editor.js';
import type { LayoutSet } from './elements.js';
import { ListTable } from './list-table.js';

const SETS: Record<'terminal' | 'carrier', [LayoutSet, string][]> = {
  terminal: [
    ['appointment', 'Appointment cards'],
    ['ticket', 'Tickets'],
  ],
  carrier: [['trip', 'Trip cards']],
};

const REF = /^.{1,100}$/u;

/** The account's layouts of each set: list, create, edit (with the preview), delete. */
export function Layouts({ credential, kind }: { credential: Credential; kind: 'terminal' | 'carrier' }) {
  const sets = SETS[kind];
  const [set, setSet] = useState<LayoutSet>(sets[0][0]);
  const [layouts, setLayouts] = useState<LayoutView[] | null>(null);
  const [editing, setEditing] = useState<{ ref: string; layout: LayoutView | null } | null>(null);
  const [newRef, setNewRef] = useState('');
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const load = () =>
    api<LayoutView[]>(credential, 'GET', `/api/v1/layouts/${set}`).then(setLayouts, (error) =>
      setMessage({ ok: false, text: error instanceof Error ? error.message : String(error) }),
    );
  useEffect(() => {
    setLayouts(null);
    setEditing(null);
    void load();
  }, [set]);

  const create = (event: Event) => {
    event.preventDefault();
    const ref = newRef.trim();
    if (!REF.test(ref)) return setMessage({ ok: false, text: 'A layout ref is 1 to 100 characters.' });
    if (layouts?.some((layout) => layout.layout_ref === ref))
      return setMessage({ ok: false, text: `${ref} exists already: edit it instead.` });
    setMessage(null);
    setNewRef('');
    setEditing({ ref, layout: null });
  };

  const remove = async (ref: string) => {
    setConfirming(null);
    try {
      await api(credential, 'DELETE', `/api/v1/layouts/${set}/${encodeURIComponent(ref)}`);
      setMessage({ ok: true, text: `Layout ${ref} deleted.` });
      void load();
    } catch (error) {
      const text =
        error instanceof ApiError && error.code === 'LAYOUT_IN_USE'
          ? `${ref} cannot be deleted. ${explainLayoutInUse(error)}`
          : error instanceof Error
            ? error.message
            : String(error);
      setMessage({ ok: false, text });
    }
  };

  return (
    <div class="layouts">
      <div class="row set-tabs" role="group" aria-label="Layout set">
        {sets.map(([name, label]) => (
          <button key={name} type="button" class="tab" aria-pressed={set === name} onClick={() => setSet(name)}>
            {label}
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
            caption={<>{sets.find(([name]) => name === set)?.[1]} layouts</>}
            headings={['Layout ref', 'Name', 'Elements', 'Updated']}
            actions="Actions"
            items={layouts}
            itemKey={(layout) => layout.layout_ref}
            empty="No layouts yet: create one below."
            row={(layout) => (
              <tr>
                <td>
                  <code>{layout.layout_ref}</code>
                </td>
                <td>{layout.name ?? '—'}</td>
                <td>
                  {set === 'ticket'
                    ? (layout.elements?.length ?? 0)
                    : `${layout.card_layout?.length ?? 0} card, ${layout.modal_layout?.length ?? 0} detail`}
                </td>
                <td>{formatTime(layout.updated_at)}</td>
                <td class="row">
                  <button
                    type="button"
                    aria-label={`Edit ${layout.layout_ref}`}
                    onClick={() => setEditing({ ref: layout.layout_ref, layout })}
                  >
                    Edit
                  </button>
                  <ConfirmDelete
                    asking={confirming === layout.layout_ref}
                    label={`Delete ${layout.layout_ref}`}
                    confirm={`Yes, delete ${layout.layout_ref}`}
                    onAsk={() => setConfirming(layout.layout_ref)}
                    onConfirm={() => void remove(layout.layout_ref)}
                    onKeep={() => setConfirming(null)}
                  />
                </td>
              </tr>
            )}
          />
          <form class="row new-layout" onSubmit={create}>
            <label for="new-layout-ref">New layout ref</label>
            <input id="new-layout-ref" value={newRef} spellcheck={false} onInput={(e) => setNewRef(e.currentTarget.value)} />
            <button type="submit" class="primary">
              Create layout
            </button>
          </form>
        </>
      )}
    </div>
  );
}
