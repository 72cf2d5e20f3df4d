import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';
import { useTemporal } from '../shared/zoned.js';
import { useMay } from './access.js';
import { ConfirmDelete } from './confirm-delete.js';
import { ListTable } from './list-table.js';
import { RuleCalendar } from './rule-calendar.js';
import { RuleEditor, type RuleView } from './rule-editor.js';

type View = { kind: 'list' } | { kind: 'edit'; ref: string | null } | { kind: 'calendar'; ref: string };

/**
 * A terminal's capacity (docs/capacity.md): its rules listed, created, edited and deleted, and the week calendar of
 * each rule's slots.
 */
export function Capacity({ credential }: { credential: Credential }) {
  const may = useMay();
  const i18n = useI18n();
  const { t } = i18n;
  const ready = useTemporal();
  const [rules, setRules] = useState<RuleView[] | null>(null);
  const [layouts, setLayouts] = useState<Schemas['LayoutView'][]>([]);
  const [view, setView] = useState<View>({ kind: 'list' });
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const client = gateClient(credential);

  const load = () =>
    dataOf(client.GET('/api/v1/capacity')).then(setRules, (error) => setMessage({ ok: false, text: explainError(i18n, error) }));
  useEffect(() => {
    void load();
    dataOf(client.GET('/api/v1/layouts/{set}', { params: { path: { set: 'appointment' } } })).then(setLayouts, () => setLayouts([]));
  }, []);

  const remove = async (ref: string) => {
    setConfirming(null);
    try {
      await dataOf(client.DELETE('/api/v1/capacity/{rule_ref}', { params: { path: { rule_ref: ref } } }));
      setMessage({ ok: true, text: t('rules.deleted', { ref }) });
      void load();
    } catch (error) {
      setMessage({ ok: false, text: explainError(i18n, error) });
    }
  };
  // The list is read again each time it is shown: rules change through the API too.
  const toList = () => {
    setView({ kind: 'list' });
    void load();
  };
  const saved = (rule: RuleView) =>
    setRules((current) =>
      [...(current ?? []).filter((r) => r.rule_ref !== rule.rule_ref), rule].sort((a, b) => (a.rule_ref < b.rule_ref ? -1 : 1)),
    );

  if (!ready || rules === null)
    return message ? (
      <p class="error" role="alert">
        {message.text}
      </p>
    ) : (
      <p class="muted">{t('common.loading')}</p>
    );

  if (view.kind === 'edit')
    return (
      <RuleEditor
        key={view.ref ?? '(new)'}
        credential={credential}
        rule={rules.find((rule) => rule.rule_ref === view.ref) ?? null}
        takenRefs={rules.map((rule) => rule.rule_ref)}
        layouts={layouts}
        onSaved={saved}
        onCalendar={(ref) => setView({ kind: 'calendar', ref })}
        onClose={toList}
      />
    );
  const shown = view.kind === 'calendar' ? rules.find((rule) => rule.rule_ref === view.ref) : undefined;
  if (shown)
    return (
      <RuleCalendar
        key={shown.rule_ref}
        credential={credential}
        rule={shown}
        onEdit={() => setView({ kind: 'edit', ref: shown.rule_ref })}
        onClose={toList}
      />
    );

  return (
    <div class="capacity stack">
      <p class="muted">{t('rules.intro')}</p>
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      <ListTable
        caption={t('rules.caption')}
        headings={[
          t('rules.col.ref'),
          t('rules.col.name'),
          t('rules.col.zone'),
          t('rules.col.slots'),
          t('rules.col.layouts'),
          t('rules.col.carriers'),
        ]}
        actions={t('rules.col.actions')}
        items={rules}
        itemKey={(rule) => rule.rule_ref}
        empty={t('rules.empty')}
        row={(rule) => (
          <tr>
            <td>
              <code>{rule.rule_ref}</code>
            </td>
            <td>{rule.name ?? '—'}</td>
            <td>{rule.time_zone}</td>
            <td>{t('rules.slotsOf', { minutes: rule.slot_minutes, capacity: rule.capacity })}</td>
            <td>
              {rule.layout_refs
                ? rule.layout_refs.map((ref) => layouts.find((layout) => layout.layout_ref === ref)?.name || ref).join(', ')
                : t('rules.allLayouts')}
            </td>
            <td>{rule.bookable_by ? t('rules.carrierCount', { count: rule.bookable_by.length }) : '—'}</td>
            <td class="row">
              <button
                type="button"
                aria-label={t('rules.calendarNamed', { ref: rule.rule_ref })}
                onClick={() => setView({ kind: 'calendar', ref: rule.rule_ref })}
              >
                {t('rules.calendar')}
              </button>
              {may('capacity:write') && (
                <>
                  <button
                    type="button"
                    aria-label={t('rules.editNamed', { ref: rule.rule_ref })}
                    onClick={() => setView({ kind: 'edit', ref: rule.rule_ref })}
                  >
                    {t('rules.edit')}
                  </button>
                  <ConfirmDelete
                    asking={confirming === rule.rule_ref}
                    label={t('rules.deleteNamed', { ref: rule.rule_ref })}
                    confirm={t('rules.deleteConfirm', { ref: rule.rule_ref })}
                    onAsk={() => setConfirming(rule.rule_ref)}
                    onConfirm={() => void remove(rule.rule_ref)}
                    onKeep={() => setConfirming(null)}
                  />
                </>
              )}
            </td>
          </tr>
        )}
      />
      {may('capacity:write') && (
        <div class="row">
          <button type="button" class="primary" onClick={() => (setMessage(null), setView({ kind: 'edit', ref: null }))}>
            {t('rules.new')}
          </button>
        </div>
      )}
    </div>
  );
}
