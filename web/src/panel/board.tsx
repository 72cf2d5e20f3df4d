import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { formatTaxId } from '../shared/format.js';
import { parseInstant, useI18n } from '../shared/i18n.js';
import { StatusWord, TicketView } from '../shared/layout.js';
import type { Schemas } from '../shared/schemas.js';
import { useMay } from './access.js';
import { AppointmentForm } from './appointment-form.js';
import { ConfirmDelete } from './confirm-delete.js';
import { DriverLink } from './driver-link.js';
import { historyLine } from './history.js';
import { type LayoutName, useLayoutNames } from './layout-names.js';
import { liveChanges } from './live.js';
import { ListTable } from './list-table.js';

type Noun = 'appointment' | 'trip';
type Item = Schemas['AppointmentItemView'] | Schemas['TripItemView'];
type Ticket = Schemas['TicketView'];
type LogEntry = Schemas['LogItemView'];
type Logged = Schemas['AppointmentLogsData'] | Schemas['TripLogsData'];

/** The appointment or trip of a listed item. Both are known by their ref (one per account); only appointments list their id and window. */
const recordOf = (item: Item) => ('appointment' in item ? item.appointment : item.trip);

const STATUSES = {
  appointment: ['SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'],
  trip: ['PLANNED', 'IN_TRANSIT', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'],
} as const satisfies Record<Noun, readonly string[]>;
type AppointmentStatus = (typeof STATUSES.appointment)[number];
type TripStatus = (typeof STATUSES.trip)[number];

interface Filters {
  /** Only the board's own statuses (STATUSES[noun]): the form offers no others. */
  status: (AppointmentStatus | TripStatus)[];
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
  window_from: '',
  window_to: '',
  updated_since: '',
  driver_tax_id: '',
  layout_ref: '',
  ref_prefix: '',
  limit: '50',
};

/** A local date and time as a datetime-local field holds it (`2026-11-29T00:00`). */
const localInput = (date: Date) => {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
};

/** Today's board: appointments whose window falls in today, midnight to midnight on this device's clock. */
function todayFilters(): Filters {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { ...NO_FILTERS, window_from: localInput(start), window_to: localInput(end) };
}

/** A datetime-local value (the browser's zone) as ISO 8601 with a zone, as the listing wants. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** A filter left empty is left out. */
const given = (text: string) => text || undefined;

function query(filters: Filters, limit: number, cursor?: string) {
  return {
    window_from: iso(filters.window_from),
    window_to: iso(filters.window_to),
    updated_since: iso(filters.updated_since),
    // Typed as it is shown (123.456.789-01) or as digits: the service keeps digits.
    driver_tax_id: given(filters.driver_tax_id.trim().replace(/[.\-/\s]/g, '')),
    layout_ref: given(filters.layout_ref.trim()),
    ref_prefix: given(filters.ref_prefix),
    limit,
    cursor,
  };
}

/** The board: the account's appointments (terminal) or trips (carrier), filtered, changing live. */
export function Board({ credential, kind, today }: { credential: Credential; kind: 'terminal' | 'carrier'; today?: boolean }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const noun: Noun = kind === 'terminal' ? 'appointment' : 'trip';
  const [form, setForm] = useState<Filters>(() => (today ? todayFilters() : NO_FILTERS));
  const [filters, setFilters] = useState<Filters>(form);
  const [items, setItems] = useState<Item[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [tickets, setTickets] = useState<Record<string, Ticket[]>>({});
  const [changed, setChanged] = useState<Set<string>>(new Set());
  const [announcement, setAnnouncement] = useState('');
  const [problem, setProblem] = useState<{ text: string; path?: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [live, setLive] = useState<'live' | 'connecting' | null>(null);
  const [version, setVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const shown = useRef<Item[]>([]);
  const client = gateClient(credential);
  const layoutName = useLayoutNames(credential, noun === 'appointment' ? ['appointment', 'ticket'] : ['trip']);

  const ticketsOf = async (refs: string[]) => {
    if (noun !== 'appointment' || refs.length === 0) return {};
    const found: Record<string, Ticket[]> = {};
    for (let i = 0; i < refs.length; i += 100) {
      const appointment_refs = refs.slice(i, i + 100);
      const groups = await dataOf(client.GET('/api/v1/tickets', { params: { query: { appointment_refs } } }));
      for (const group of groups) found[group.ref] = group.data ?? [];
    }
    return found;
  };

  /** Loads the first page again (as many rows as are shown), marking the rows whose status moved. */
  const load = async (current: Filters, more?: string) => {
    try {
      const size = Number(current.limit) || 50;
      const limit = more ? size : Math.min(500, Math.max(size, shown.current.length));
      const filters = query(current, limit, more);
      // Deleted records are kept, not shown: only ticking their status shows them.
      const status = current.status.length ? current.status : STATUSES[noun].filter((s) => s !== 'DELETED');
      const page: { items: Item[]; next_cursor: string | null } =
        noun === 'appointment'
          ? await dataOf(client.GET('/api/v1/appointments', { params: { query: { ...filters, status: status as AppointmentStatus[] } } }))
          : await dataOf(client.GET('/api/v1/trips', { params: { query: { ...filters, status: status as TripStatus[] } } }));
      const next = more ? [...shown.current, ...page.items] : page.items;
      const before = new Map(shown.current.map((item) => [recordOf(item).ref, recordOf(item).status]));
      const moved = next.map(recordOf).filter((record) => before.has(record.ref) && before.get(record.ref) !== record.status);
      if (moved.length) {
        setChanged(new Set(moved.map((record) => record.ref)));
        setAnnouncement(moved.map((record) => t('board.movedTo', { ref: record.ref, status: i18n.status(record.status) })).join(' '));
      }
      shown.current = next;
      setItems(next);
      setCursor(page.next_cursor);
      setTickets(await ticketsOf(next.map((item) => recordOf(item).ref)));
      setProblem(null);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        const issues = (error.details as { errors?: { path: string; message: string }[] })?.errors ?? [];
        setProblem({ text: issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ') || error.message, path: issues[0]?.path });
      } else setProblem({ text: explainError(i18n, error) });
    }
  };

  useEffect(() => {
    shown.current = [];
    setItems(null);
    void load(filters);
  }, [filters]);

  // Every change of the account's records, pushed on the /panel socket, redraws the board.
  useEffect(() => {
    const stop = liveChanges(
      credential,
      (mode) => setLive(mode),
      () => {
        setVersion((n) => n + 1);
      },
    );
    return stop;
  }, []);
  useEffect(() => {
    if (version > 0) void load(filters);
  }, [version]);

  const apply = (event: Event) => {
    event.preventDefault();
    setFilters({ ...form });
  };
  const update = (name: keyof Filters, value: string) => setForm((current) => ({ ...current, [name]: value }));
  const toggle = (status: AppointmentStatus | TripStatus, on: boolean) =>
    setForm((current) => ({ ...current, status: on ? [...current.status, status] : current.status.filter((s) => s !== status) }));
  const invalid = (name: string) => (problem?.path === name ? true : undefined);

  return (
    <div class="board">
      <form class="filters" onSubmit={apply} aria-label={t('board.filters')}>
        <fieldset>
          <legend>{t('board.status')}</legend>
          {STATUSES[noun].map((status) => (
            <label key={status} class="check">
              <input type="checkbox" checked={form.status.includes(status)} onChange={(e) => toggle(status, e.currentTarget.checked)} />{' '}
              {i18n.status(status)}
            </label>
          ))}
          <p class="muted">{t('appointmentForm.deletedHidden')}</p>
        </fieldset>
        <div class="filter-grid">
          <TextFilter
            name="window_from"
            label={t('board.windowFrom')}
            type="datetime-local"
            form={form}
            update={update}
            invalid={invalid}
          />
          <TextFilter name="window_to" label={t('board.windowTo')} type="datetime-local" form={form} update={update} invalid={invalid} />
          <TextFilter
            name="updated_since"
            label={t('board.updatedSince')}
            type="datetime-local"
            form={form}
            update={update}
            invalid={invalid}
          />
          <TextFilter name="driver_tax_id" label={t('board.driverTaxId')} form={form} update={update} invalid={invalid} />
          <TextFilter name="layout_ref" label={t('board.layout')} form={form} update={update} invalid={invalid} />
          <TextFilter name="ref_prefix" label={t('board.refPrefix')} form={form} update={update} invalid={invalid} />
          <TextFilter name="limit" label={t('board.rowsPerPage')} type="number" form={form} update={update} invalid={invalid} />
        </div>
        <div class="row">
          <button type="submit" class="primary">
            {t('board.apply')}
          </button>
          <button type="button" onClick={() => (setForm(NO_FILTERS), setFilters(NO_FILTERS))}>
            {t('board.clear')}
          </button>
          <span class="muted live-mode" data-live={live ?? ''}>
            {live === 'live' ? t('board.liveEvents') : live === 'connecting' ? t('board.liveConnecting') : ''}
          </span>
        </div>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem.text}
        </p>
      )}
      {noun === 'appointment' && !creating && may('appointments:write') && (
        <div class="row">
          <button type="button" class="primary" onClick={() => (setCreating(true), setNotice(null))}>
            {t('appointmentForm.new')}
          </button>
          {notice && (
            <p class="success" role="status">
              {notice}
            </p>
          )}
        </div>
      )}
      {creating && (
        <AppointmentForm
          credential={credential}
          onClose={() => setCreating(false)}
          onSaved={(ref) => {
            setCreating(false);
            setNotice(t('appointmentForm.created', { ref }));
            setOpen(ref);
            void load(filters);
          }}
        />
      )}
      <p class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      <div class="board-body">
        <ListTable
          caption={noun === 'appointment' ? t('board.appointments') : t('board.trips')}
          headings={[
            t('board.col.ref'),
            t('board.col.status'),
            t('board.col.window'),
            t('board.col.driver'),
            t('board.col.plate'),
            t('board.col.layout'),
            ...(noun === 'appointment' ? [t('board.col.tickets'), t('board.col.bookedBy')] : []),
            t('board.col.updated'),
          ]}
          items={items}
          itemKey={(item) => recordOf(item).ref}
          empty={t('board.empty')}
          row={(item) => {
            const record = recordOf(item);
            return (
              <tr class={changed.has(record.ref) ? 'changed' : undefined} data-ref={record.ref}>
                <td>
                  <button
                    type="button"
                    class="link-button"
                    aria-expanded={open === record.ref}
                    onClick={() => setOpen(open === record.ref ? null : record.ref)}
                  >
                    {record.ref}
                  </button>
                </td>
                <td>
                  <StatusWord status={record.status} />
                </td>
                <td>{'window_start' in record ? i18n.window(record.window_start, record.window_end) : '—'}</td>
                <td>{formatTaxId(item.driver.tax_id)}</td>
                <td>{record.license_plate ?? '—'}</td>
                <td>{layoutName(noun, record.layout_ref)}</td>
                {noun === 'appointment' && <td class="ticket-count">{tickets[record.ref]?.length ?? 0}</td>}
                {noun === 'appointment' && <td>{('booked_by' in record && record.booked_by?.carrier_name) || '—'}</td>}
                <td>{i18n.time(record.updated_at)}</td>
              </tr>
            );
          }}
        />
        {cursor && (
          <button type="button" onClick={() => void load(filters, cursor)}>
            {t('board.loadMore')}
          </button>
        )}
        {open && (
          <RecordDetail
            credential={credential}
            noun={noun}
            recordRef={open}
            version={version}
            tickets={tickets[open]}
            layoutName={layoutName}
            onChanged={() => void load(filters)}
            onClose={() => setOpen(null)}
          />
        )}
      </div>
    </div>
  );
}

function TextFilter(props: {
  name: keyof Filters;
  label: string;
  type?: 'text' | 'number' | 'datetime-local';
  form: Filters;
  update: (name: keyof Filters, value: string) => void;
  invalid: (name: string) => true | undefined;
}) {
  const id = `filter-${props.name}`;
  return (
    <div class="stack">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        // tsc needs the assertion: Preact types an input's props as a union told apart by `type`, which a value of
        // several types does not fit (the lint rule reads the attribute alone).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        type={(props.type ?? 'text') as 'text'}
        value={props.form[props.name] as string}
        aria-invalid={props.invalid(props.name)}
        onInput={(e) => props.update(props.name, e.currentTarget.value)}
      />
    </div>
  );
}

/** One record's history (its logs, newest first) and, for appointments, its tickets. */
function RecordDetail(props: {
  credential: Credential;
  noun: Noun;
  recordRef: string;
  version: number;
  tickets?: Ticket[];
  layoutName: LayoutName;
  onChanged: () => void;
  onClose: () => void;
}) {
  const i18n = useI18n();
  const may = useMay();
  const { t } = i18n;
  const [logs, setLogs] = useState<LogEntry[] | null>(null);
  const [record, setRecord] = useState<Logged | null>(null);
  const [editing, setEditing] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    setEditing(false);
    setCancelling(false);
    setOutcome(null);
  }, [props.recordRef]);
  const cancel = async () => {
    setCancelling(false);
    try {
      await dataOf(gateClient(props.credential).DELETE('/api/v1/appointments', { body: props.recordRef }));
      setOutcome({ ok: true, text: t('appointmentForm.cancelled', { ref: props.recordRef }) });
      setReloads((n) => n + 1);
      props.onChanged();
    } catch (error) {
      setOutcome({ ok: false, text: explainError(i18n, error) });
    }
  };
  useEffect(() => {
    const client = gateClient(props.credential);
    const params = { query: { refs: [props.recordRef] } };
    const logs: Promise<(Schemas['AppointmentLogsElement'] | Schemas['TripLogsElement'])[]> =
      props.noun === 'appointment'
        ? dataOf(client.GET('/api/v1/appointments/logs', { params }))
        : dataOf(client.GET('/api/v1/trips/logs', { params }));
    logs.then(
      ([entry]) => {
        setLogs(entry?.data?.logs ?? []);
        setRecord(entry?.data ?? null);
      },
      () => setLogs([]),
    );
  }, [props.recordRef, props.version, reloads]);
  const appointment = record && 'appointment' in record ? record.appointment : null;
  return (
    <section class="detail" aria-labelledby="detail-title">
      <header class="row">
        <h2 id="detail-title">{props.recordRef}</h2>
        <button type="button" class="quiet" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </header>
      {appointment && appointment.status !== 'DELETED' && !editing && (
        <div class="row">
          <button type="button" aria-label={t('appointmentForm.editNamed', { ref: appointment.ref })} onClick={() => setEditing(true)}>
            {t('appointmentForm.edit')}
          </button>
          <ConfirmDelete
            asking={cancelling}
            label={t('appointmentForm.cancelNamed', { ref: appointment.ref })}
            action={t('appointmentForm.cancel')}
            confirm={t('appointmentForm.cancelConfirm', { ref: appointment.ref })}
            onAsk={() => setCancelling(true)}
            onConfirm={() => void cancel()}
            onKeep={() => setCancelling(false)}
          />
        </div>
      )}
      {outcome && (
        <p class={outcome.ok ? 'success' : 'error'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      )}
      {appointment && record && editing && (
        <AppointmentForm
          credential={props.credential}
          editing={{ appointment, driver: record.driver }}
          onClose={() => setEditing(false)}
          onSaved={(ref) => {
            setEditing(false);
            setOutcome({ ok: true, text: t('appointmentForm.saved', { ref }) });
            setReloads((n) => n + 1);
            props.onChanged();
          }}
        />
      )}
      {props.noun === 'appointment' && (
        <>
          <h3>{t('board.tickets')}</h3>
          {(props.tickets ?? []).length === 0 ? (
            <p class="muted">{t('board.noTickets')}</p>
          ) : (
            <ul class="tickets">
              {props.tickets!.map((ticket) => (
                <li key={ticket.id}>
                  {props.layoutName('ticket', ticket.layout_ref)} · {i18n.time(ticket.created_at)}
                  {record && 'appointment' in record && (
                    <DrawnTicket
                      credential={props.credential}
                      ticket={ticket}
                      record={record}
                      name={props.layoutName('ticket', ticket.layout_ref)}
                    />
                  )}
                  <details>
                    <summary>{t('board.content')}</summary>
                    <pre>{JSON.stringify(ticket.content, null, 2)}</pre>
                  </details>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {record && may('drivers:write') && <DriverLink credential={props.credential} taxId={record.driver.tax_id} />}
      <h3>{t('board.history')}</h3>
      {logs === null ? (
        <p class="muted">{t('common.loading')}</p>
      ) : (
        <ol class="logs" aria-label={t('board.historyOf', { ref: props.recordRef })}>
          {logs.map((log, i) => {
            const line = historyLine(i18n, props.noun, log, props.layoutName);
            return (
              <li key={i} data-event={log.event}>
                <strong>{line.title}</strong>{' '}
                <time class="muted" dateTime={parseInstant(log.created_at).toISOString()}>
                  {i18n.time(log.created_at)}
                </time>
                {line.detail && <div>{line.detail}</div>}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/** A ticket as its driver sees it: its layout drawn by the preview endpoint against the ticket itself. */
function DrawnTicket(props: { credential: Credential; ticket: Ticket; record: Schemas['AppointmentLogsData']; name: string }) {
  const { t } = useI18n();
  const may = useMay();
  const [layout, setLayout] = useState<Schemas['RenderedLayoutView'] | null | undefined>(undefined);
  useEffect(() => {
    // Drawing needs the layouts (layouts:read); whoever may not read them sees the ticket's content as written.
    if (!may('layouts:read')) return setLayout(null);
    const data = { content: props.ticket.content, appointment: props.record.appointment, driver: props.record.driver };
    const params = { path: { set: 'ticket' as const, layout_ref: props.ticket.layout_ref } };
    dataOf(gateClient(props.credential).POST('/api/v1/layouts/{set}/{layout_ref}/preview', { params, body: { data } })).then(
      setLayout,
      () => setLayout(null),
    );
  }, [props.ticket.id, props.ticket.content]);
  if (!may('layouts:read'))
    return (
      <article class="ticket" aria-label={t('board.ticketLabel', { layout: props.ticket.layout_ref })}>
        <dl class="ticket-content">
          {Object.entries(props.ticket.content ?? {}).map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      </article>
    );
  if (layout === undefined) return null;
  return <TicketView layout={layout} label={t('board.ticketLabel', { layout: props.name })} />;
}
