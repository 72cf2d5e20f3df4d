import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
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
  const latest = useRef(0);
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
    const call = ++latest.current;
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
      if (call !== latest.current) return;
      setRendered(drawn);
      setProblem(null);
      setIncomplete(false);
    } catch (error) {
      if (call !== latest.current) return;
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
      <label for="sample-data">{t('preview.sampleData')}</label>
      <p class="muted" id="sample-hint">
        {from ? t('preview.fromRecord', { ref: from }) : t('preview.madeUp')}
      </p>
      <textarea
        id="sample-data"
        rows={14}
        spellcheck={false}
        aria-describedby="sample-hint"
        aria-invalid={jsonProblem ? true : undefined}
        value={text ?? ''}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {jsonProblem && (
        <p class="error" role="alert">
          {jsonProblem}
        </p>
      )}
    </aside>
  );
}
