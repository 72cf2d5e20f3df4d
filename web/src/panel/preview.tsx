import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { displayValue, formatTaxId, isUuid } from '../shared/format.js';
import { type MessageKey, type Translator, useI18n } from '../shared/i18n.js';
import { useLatest } from '../shared/latest.js';
import { Elements, RecordCard, TicketView } from '../shared/layout.js';
import type { Schemas } from '../shared/schemas.js';
import type { LayoutSet } from './elements.js';

const SAMPLE_RECORD = {
  ref: 'SAMPLE-0001',
  status: 'SCHEDULED',
  license_plate: 'ABC1D23',
  summary: 'Container pickup',
  window_start: '2026-11-22T08:00:00-03:00',
  window_end: '2026-11-22T10:00:00-03:00',
  driver: { tax_id: '12345678901', driver_license_number: 'LIC-12345678901' },
  custom_data: { container: { number: 'MSCU1234567' } },
};
const SAMPLE_CONTENT = { gate: 'A3', lane: 2, bay: 12 };

/** The sample's fields as people name them; others (the partner's own, under custom_data or content) by their keys. */
const SAMPLE_FIELDS: Record<string, MessageKey> = {
  ref: 'appointmentForm.ref',
  layout_ref: 'appointmentForm.layout',
  status: 'board.col.status',
  license_plate: 'appointmentForm.plate',
  summary: 'appointmentForm.summary',
  window_start: 'appointmentForm.start',
  window_end: 'appointmentForm.end',
  start_tolerance: 'appointmentForm.startTolerance',
  end_tolerance: 'appointmentForm.endTolerance',
  user_tax_id: 'preview.field.user_tax_id',
  created_at: 'preview.field.created_at',
  updated_at: 'preview.field.updated_at',
  arrived_at: 'preview.field.arrived_at',
  entered_at: 'preview.field.entered_at',
  departed_at: 'preview.field.departed_at',
  booked_by: 'board.col.bookedBy',
  'booked_by.name': 'board.col.bookedBy',
  from_location: 'preview.field.from_location',
  to_location: 'preview.field.to_location',
  origin_city: 'preview.field.origin_city',
  origin_state: 'preview.field.origin_state',
  destiny_city: 'preview.field.destiny_city',
  destiny_state: 'preview.field.destiny_state',
  'driver.tax_id': 'appointmentForm.taxId',
  'driver.driver_license_number': 'appointmentForm.licence',
  'driver.driver_license_category': 'appointmentForm.category',
};

/** The partner's own keys, under the record's custom data or a ticket's content: "container › number". */
const ownKeys = (path: string) =>
  path
    .replace(/^(custom_data|content)\./, '')
    .split('.')
    .join(' › ');

/**
 * The sample's values as people read them, each under its field's name: times through Intl in the reader's language,
 * numbers with its separators, tax ids grouped, statuses as words; ids left out (no layout shows them).
 */
export function sampleValues(data: unknown, i18n: Translator, prefix = ''): [string, string][] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  return Object.entries(data as Record<string, unknown>).flatMap(([key, value]): [string, string][] => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string' && isUuid(value)) return [];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return sampleValues(value, i18n, path);
    const label = SAMPLE_FIELDS[path] ? i18n.t(SAMPLE_FIELDS[path]) : ownKeys(path);
    const shown =
      path === 'status' && typeof value === 'string'
        ? i18n.status(value)
        : path === 'user_tax_id' && typeof value === 'string'
          ? formatTaxId(value)
          : Array.isArray(value)
            ? value.map((item) => displayValue(item, i18n, path)).join(', ')
            : displayValue(value, i18n, path);
    return [[label, shown]];
  });
}

/**
 * Sample data for the preview: one of the account's real records when it has one (one using this layout
 * first), else a made-up one. The person edits it freely; it is only sent to the preview endpoint.
 */
async function sampleFor(credential: Credential, set: LayoutSet, layoutRef: string): Promise<{ data: object; from: string | null }> {
  const client = gateClient(credential);
  const appointment = (layout_ref?: string) =>
    dataOf(client.GET('/api/v1/appointments', { params: { query: { limit: 1, layout_ref } } })).then((page) => page.items[0] ?? null);
  if (set === 'trip') {
    const trip = (layout_ref?: string) =>
      dataOf(client.GET('/api/v1/trips', { params: { query: { limit: 1, layout_ref } } })).then((page) => page.items[0] ?? null);
    const item = (await trip(layoutRef)) ?? (await trip());
    return item ? { data: { ...item.trip, driver: item.driver }, from: item.trip.ref } : { data: SAMPLE_RECORD, from: null };
  }
  if (set === 'appointment') {
    const item = (await appointment(layoutRef)) ?? (await appointment());
    return item ? { data: { ...item.appointment, driver: item.driver }, from: item.appointment.ref } : { data: SAMPLE_RECORD, from: null };
  }
  const item = await appointment();
  if (!item) return { data: { content: SAMPLE_CONTENT }, from: null };
  const { ref } = item.appointment;
  const [group] = await dataOf(client.GET('/api/v1/tickets', { params: { query: { appointment_refs: [ref] } } }));
  const tickets = group?.data ?? [];
  const ticket = tickets.find((t) => t.layout_ref === layoutRef) ?? tickets[0];
  return { data: { content: ticket?.content ?? SAMPLE_CONTENT, appointment: item.appointment, driver: item.driver }, from: ref };
}

/**
 * The layout as it is being edited (saved or not), drawn by the preview endpoint of unsaved layouts with the driver
 * app's own components, beside the editor. It redraws once edits or the sample pause; while the layout has a
 * problem the service refuses, the last drawable version stays, with a note.
 */
export function Preview(props: { credential: Credential; set: LayoutSet; layoutRef: string; layout: Schemas['PutLayoutDto'] }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [text, setText] = useState<string | null>(null);
  const [from, setFrom] = useState<string | null>(null);
  const [rendered, setRendered] = useState<Schemas['RenderedDraftLayoutView'] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [jsonProblem, setJsonProblem] = useState<string | null>(null);
  const [incomplete, setIncomplete] = useState(false);
  const latest = useLatest();
  const layoutJson = JSON.stringify(props.layout);

  useEffect(() => {
    sampleFor(props.credential, props.set, props.layoutRef).then(
      (sample) => {
        setText(JSON.stringify(sample.data, null, 2));
        setFrom(sample.from);
      },
      () => setText(JSON.stringify(props.set === 'ticket' ? { content: SAMPLE_CONTENT } : SAMPLE_RECORD, null, 2)),
    );
  }, [props.set, props.layoutRef]);

  const render = async (sample: string | null, layout: string) => {
    if (sample === null) return;
    let data: unknown;
    try {
      data = JSON.parse(sample);
    } catch (error) {
      return setJsonProblem(t('preview.badJson', { reason: (error as Error).message }));
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return setJsonProblem(t('preview.notObject'));
    setJsonProblem(null);
    const current = latest.begin();
    try {
      const drawn = await dataOf(
        gateClient(props.credential).POST('/api/v1/layouts/{set}/preview', {
          // Texts written in several languages are previewed in the panel's.
          params: { path: { set: props.set }, header: { 'Accept-Language': i18n.language } },
          body: {
            layout: JSON.parse(layout) as Schemas['PutLayoutDto'],
            data: data as Record<string, unknown>,
            layout_ref: props.layoutRef,
          },
        }),
      );
      if (!current()) return;
      setRendered(drawn);
      setProblem(null);
      setIncomplete(false);
    } catch (error) {
      if (!current()) return;
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        if (rendered !== null) setIncomplete(true);
        else setProblem(t('preview.cannotDraw'));
      } else setProblem(explainError(i18n, error));
    }
  };

  // Redrawn whenever the layout being edited, the sample or the panel's language changes, once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => void render(text, layoutJson), 300);
    return () => clearTimeout(timer);
  }, [text, layoutJson, i18n.language]);

  const sample = (() => {
    try {
      return JSON.parse(text ?? '{}') as Record<string, unknown>;
    } catch {
      return {};
    }
  })();

  return (
    <aside class="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">{t('preview.title')}</h2>
      <p class="muted">{t('preview.hint')}</p>
      {incomplete && (
        <p class="muted" role="status">
          {t('preview.stale')}
        </p>
      )}
      <div class="phone" data-testid="preview">
        {problem ? (
          <p class="error" role="alert">
            {problem}
          </p>
        ) : rendered === null ? (
          <p class="muted">{t('preview.drawing')}</p>
        ) : props.set === 'ticket' ? (
          <TicketView layout={rendered} label={t('preview.ticket')} />
        ) : (
          <>
            <RecordCard
              layout={rendered}
              title={typeof sample.ref === 'string' ? sample.ref : t('preview.sample')}
              status={typeof sample.status === 'string' ? sample.status : undefined}
            />
            <section class="modal-preview" aria-label={t('preview.modal')}>
              <h3>{t('layout.details')}</h3>
              <Elements elements={rendered.modal_layout} />
            </section>
          </>
        )}
      </div>
      <h3 id="sample-values">{t('preview.sampleValues')}</h3>
      <p class="muted" id="sample-hint">
        {from ? t('preview.fromRecord', { ref: from }) : t('preview.madeUp')}
      </p>
      <dl class="sample-values" aria-labelledby="sample-values">
        {sampleValues(sample, i18n).map(([label, shown], i) => (
          <div key={i}>
            <dt>{label}</dt>
            <dd>{shown}</dd>
          </div>
        ))}
      </dl>
      {/* The data as the preview endpoint takes it (ISO instants, bare digits): for editing, folded away. */}
      <details>
        <summary>{t('preview.editSample')}</summary>
        <label for="sample-data">{t('preview.sampleData')}</label>
        <textarea
          id="sample-data"
          rows={14}
          spellcheck={false}
          aria-describedby="sample-hint"
          aria-invalid={jsonProblem ? true : undefined}
          value={text ?? ''}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </details>
      {jsonProblem && (
        <p class="error" role="alert">
          {jsonProblem}
        </p>
      )}
    </aside>
  );
}
