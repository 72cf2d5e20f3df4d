import { useEffect, useRef, useState } from 'preact/hooks';
import type { operations } from '../../../client/schema.js';
import { ApiError, type Credential, issuesOf } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainBooking } from '../shared/explain.js';
import { formatTaxId } from '../shared/format.js';
import { useI18n } from '../shared/i18n.js';
import { StatusWord } from '../shared/layout.js';
import type { Schemas } from '../shared/schemas.js';
import { useMay } from './access.js';
import { ConfirmDelete } from './confirm-delete.js';
import { DriverLink } from './driver-link.js';
import { useChanges } from './live.js';
import { ListTable } from './list-table.js';

type Item = Schemas['BookingItemView'];
type ListQuery = NonNullable<operations['BookingsController_list']['parameters']['query']>;

const STATUSES = ['SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'] as const;
type Status = (typeof STATUSES)[number];

interface Filters {
  status: Status[];
  terminal_id: string;
  window_from: string;
  window_to: string;
  updated_since: string;
  driver_tax_id: string;
  layout_ref: string;
  ref_prefix: string;
  limit: string;
}
const NO_FILTERS: Filters = {
  status: [],
  terminal_id: '',
  window_from: '',
  window_to: '',
  updated_since: '',
  driver_tax_id: '',
  layout_ref: '',
  ref_prefix: '',
  limit: '50',
};
const TEXT_FILTERS = ['window_from', 'window_to', 'updated_since', 'driver_tax_id', 'layout_ref', 'ref_prefix', 'limit'] as const;

/** A `datetime-local` value (the device's zone) as an instant, as the listing wants. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/**
 * A carrier's bookings at every terminal (GET /api/v1/bookings) with the listing's filters, a page at a time, kept
 * up to date from its event feed (`booking.*`); each can be cancelled after a confirmation.
 */
export function Bookings({ credential }: { credential: Credential }) {
  const may = useMay();
  const i18n = useI18n();
  const { t } = i18n;
  const client = gateClient(credential);
  const [terminals, setTerminals] = useState<Map<string, string>>(new Map());
  const [layoutNames, setLayoutNames] = useState<Map<string, string>>(new Map());
  const [linkFor, setLinkFor] = useState<Item | null>(null);
  const [form, setForm] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [items, setItems] = useState<Item[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string; path?: string } | null>(null);
  const changes = useChanges(credential, ['booking.']);
  const shown = useRef<Item[]>([]);
  const keyOf = (item: Item) => `${item.appointment.terminal_id}/${item.appointment.ref}`;
  const terminalName = (id: string) => terminals.get(id) ?? id;

  useEffect(() => {
    dataOf(client.GET('/api/v1/terminals')).then(
      (found) => {
        setTerminals(new Map(found.map((terminal) => [terminal.id, terminal.name])));
        setLayoutNames(
          new Map(
            found.flatMap((terminal) =>
              terminal.layouts.filter((layout) => layout.name).map((layout) => [`${terminal.id}/${layout.layout_ref}`, layout.name!]),
            ),
          ),
        );
      },
      () => undefined,
    );
  }, []);

  const queryOf = (current: Filters, limit: number, after?: string): ListQuery => ({
    // Cancelled bookings are kept, not shown: only ticking their status shows them.
    status: current.status.length ? current.status : STATUSES.filter((status) => status !== 'DELETED'),
    terminal_id: current.terminal_id || undefined,
    window_from: instant(current.window_from),
    window_to: instant(current.window_to),
    updated_since: instant(current.updated_since),
    driver_tax_id: current.driver_tax_id.trim().replace(/[.\-/\s]/g, '') || undefined,
    layout_ref: current.layout_ref.trim() || undefined,
    ref_prefix: current.ref_prefix || undefined,
    limit,
    cursor: after,
  });

  /** The first page again (as many rows as are shown), or the next page after `after`. */
  const load = async (current: Filters, after?: string) => {
    try {
      const size = Number(current.limit) || 50;
      const limit = after ? size : Math.min(500, Math.max(size, shown.current.length));
      const page = await dataOf(client.GET('/api/v1/bookings', { params: { query: queryOf(current, limit, after) } }));
      const next = after ? [...shown.current, ...page.items] : page.items;
      shown.current = next;
      setItems(next);
      setCursor(page.next_cursor);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        const issues = issuesOf(error);
        setMessage({ ok: false, text: issues.map((issue) => `${issue.message}`).join('; ') || error.message, path: issues[0]?.path });
      } else setMessage({ ok: false, text: explainBooking(i18n, error, i18n.time) });
    }
  };
  useEffect(() => {
    shown.current = [];
    setItems(null);
    void load(filters);
  }, [filters]);
  useEffect(() => {
    if (changes > 0) void load(filters);
  }, [changes]);

  const cancel = async (item: Item) => {
    setConfirming(null);
    const { terminal_id, ref } = item.appointment;
    try {
      await dataOf(client.DELETE('/api/v1/bookings', { body: { terminal_id, refs: ref } }));
      setMessage({ ok: true, text: t('bookings.cancelled', { ref, terminal: terminalName(terminal_id) }) });
      void load(filters);
    } catch (error) {
      setMessage({ ok: false, text: explainBooking(i18n, error, i18n.time) });
    }
  };

  const update = (name: keyof Filters, value: string) => setForm((current) => ({ ...current, [name]: value }));
  const labels: Record<(typeof TEXT_FILTERS)[number], string> = {
    window_from: t('board.windowFrom'),
    window_to: t('board.windowTo'),
    updated_since: t('board.updatedSince'),
    driver_tax_id: t('board.driverTaxId'),
    layout_ref: t('board.layout'),
    ref_prefix: t('board.refPrefix'),
    limit: t('board.rowsPerPage'),
  };
  const typeOf = (name: (typeof TEXT_FILTERS)[number]) =>
    name === 'limit' ? 'number' : name === 'window_from' || name === 'window_to' || name === 'updated_since' ? 'datetime-local' : 'text';

  return (
    <div class="board">
      <form
        class="filters"
        aria-label={t('board.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setMessage(null);
          setFilters({ ...form });
        }}
      >
        <fieldset>
          <legend>{t('board.status')}</legend>
          {STATUSES.map((status) => (
            <label key={status} class="check">
              <input
                type="checkbox"
                checked={form.status.includes(status)}
                onChange={(e) =>
                  setForm((current) => ({
                    ...current,
                    status: e.currentTarget.checked ? [...current.status, status] : current.status.filter((s) => s !== status),
                  }))
                }
              />{' '}
              {i18n.status(status)}
            </label>
          ))}
          <p class="muted">{t('appointmentForm.deletedHidden')}</p>
        </fieldset>
        <div class="filter-grid">
          <div class="stack">
            <label for="bookings-terminal">{t('bookings.terminal')}</label>
            <select id="bookings-terminal" value={form.terminal_id} onChange={(e) => update('terminal_id', e.currentTarget.value)}>
              <option value="">{t('bookings.everyTerminal')}</option>
              {[...terminals].map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          {TEXT_FILTERS.map((name) => (
            <div key={name} class="stack">
              <label for={`bookings-${name}`}>{labels[name]}</label>
              <input
                id={`bookings-${name}`}
                type={typeOf(name) as 'text'}
                value={form[name]}
                aria-invalid={message?.path === name || undefined}
                onInput={(e) => update(name, e.currentTarget.value)}
              />
            </div>
          ))}
        </div>
        <div class="row">
          <button type="submit" class="primary">
            {t('board.apply')}
          </button>
          <button type="button" onClick={() => (setForm(NO_FILTERS), setFilters(NO_FILTERS))}>
            {t('board.clear')}
          </button>
        </div>
      </form>
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      <ListTable
        caption={t('bookings.caption')}
        headings={[
          t('board.col.ref'),
          t('bookings.col.terminal'),
          t('board.col.status'),
          t('board.col.window'),
          t('board.col.driver'),
          t('board.col.plate'),
          t('board.col.layout'),
        ]}
        actions={t('bookings.col.actions')}
        items={items}
        itemKey={keyOf}
        empty={t('bookings.empty')}
        row={(item) => {
          const { appointment } = item;
          return (
            <tr data-ref={appointment.ref}>
              <td>
                <code>{appointment.ref}</code>
              </td>
              <td>{terminalName(appointment.terminal_id)}</td>
              <td>
                <StatusWord status={appointment.status} />
              </td>
              <td>{i18n.window(appointment.window_start, appointment.window_end)}</td>
              <td>{formatTaxId(item.driver.tax_id)}</td>
              <td>{appointment.license_plate ?? '—'}</td>
              <td>{layoutNames.get(`${appointment.terminal_id}/${appointment.layout_ref}`) ?? appointment.layout_ref}</td>
              <td class="row">
                {appointment.status !== 'DELETED' && may('drivers:write') && (
                  <button
                    type="button"
                    aria-label={t('bookingLink.openNamed', { ref: appointment.ref })}
                    aria-expanded={linkFor !== null && keyOf(linkFor) === keyOf(item)}
                    onClick={() => setLinkFor(linkFor && keyOf(linkFor) === keyOf(item) ? null : item)}
                  >
                    {t('bookingLink.open')}
                  </button>
                )}
                {appointment.status !== 'DELETED' && may('bookings:write') && (
                  <ConfirmDelete
                    asking={confirming === keyOf(item)}
                    action={t('bookings.cancel')}
                    label={t('bookings.cancelNamed', { ref: appointment.ref })}
                    confirm={t('bookings.cancelConfirm', { ref: appointment.ref })}
                    onAsk={() => setConfirming(keyOf(item))}
                    onConfirm={() => void cancel(item)}
                    onKeep={() => setConfirming(null)}
                  />
                )}
              </td>
            </tr>
          );
        }}
      />
      {cursor && (
        <button type="button" onClick={() => void load(filters, cursor)}>
          {t('board.loadMore')}
        </button>
      )}
      {linkFor && (
        <section class="detail" aria-labelledby="booking-link-title">
          <header class="row">
            <h2 id="booking-link-title">{t('bookingLink.title', { ref: linkFor.appointment.ref })}</h2>
            <button type="button" class="quiet" onClick={() => setLinkFor(null)}>
              {t('common.close')}
            </button>
          </header>
          <DriverLink key={keyOf(linkFor)} credential={credential} taxId={linkFor.driver.tax_id} />
        </section>
      )}
    </div>
  );
}
