import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Credential, type Issue, issuesOf, newId } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainBooking } from '../shared/explain.js';
import { formatTaxId } from '../shared/format.js';
import { type MessageKey, parseInstant, useI18n } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';
import { Issues, TextField } from './fields.js';

type Appointment = Schemas['AppointmentLogView'];
type Driver = Schemas['DriverView'];

interface Fields {
  taxId: string;
  licence: string;
  category: string;
  ref: string;
  layout: string;
  plate: string;
  start: string;
  end: string;
  startTolerance: string;
  endTolerance: string;
  summary: string;
}

/** Where the service's problems (`path`) belong on the form: each field's path in the item, without the batch's index. */
const FIELD_PATHS: Record<keyof Fields, string> = {
  taxId: 'driver.tax_id',
  licence: 'driver.driver_license_number',
  category: 'driver.license_category',
  ref: 'appointment.ref',
  layout: 'appointment.layout_ref',
  plate: 'appointment.license_plate',
  start: 'appointment.window_start',
  end: 'appointment.window_end',
  startTolerance: 'appointment.start_tolerance',
  endTolerance: 'appointment.end_tolerance',
  summary: 'appointment.summary',
};

/** What each field takes, said in the reader's words when the service refuses it (its own message is English). */
const FIELD_RULES: Record<keyof Fields, MessageKey> = {
  taxId: 'appointmentForm.rule.taxId',
  licence: 'appointmentForm.rule.licence',
  category: 'appointmentForm.rule.category',
  ref: 'appointmentForm.rule.ref',
  layout: 'appointmentForm.rule.layout',
  plate: 'appointmentForm.rule.plate',
  start: 'appointmentForm.rule.start',
  end: 'appointmentForm.rule.end',
  startTolerance: 'appointmentForm.rule.tolerance',
  endTolerance: 'appointmentForm.rule.tolerance',
  summary: 'appointmentForm.rule.summary',
};

/** A path as the form knows it: without the batch's `[0].` and with `ref` of an update on the ref. */
const fieldPath = (path: string) => {
  const bare = path.replace(/^\[\d+\]\.?/, '');
  return bare === 'ref' ? 'appointment.ref' : bare;
};

/** An instant as a datetime-local value (the device's zone), and back as ISO 8601 with a zone. */
const toLocal = (iso: string | null | undefined) => {
  if (!iso) return '';
  const date = parseInstant(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
};
const fromLocal = (local: string) => (local ? new Date(local).toISOString() : null);

/**
 * An appointment created (POST /api/v1/appointments) or changed (PUT, only the fields that changed) by the terminal's
 * planner. What the service refuses is shown at the field its path names; a ref already used says so at the ref.
 */
export function AppointmentForm(props: {
  credential: Credential;
  editing?: { appointment: Appointment; driver: Driver };
  onSaved: (ref: string) => void;
  onClose: () => void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const existing = props.editing?.appointment;
  const initial: Fields = {
    taxId: props.editing?.driver.tax_id ?? '',
    licence: '',
    category: '',
    ref: existing?.ref ?? '',
    layout: existing?.layout_ref ?? '',
    plate: existing?.license_plate ?? '',
    start: toLocal(existing?.window_start),
    end: toLocal(existing?.window_end),
    startTolerance: String(existing?.start_tolerance ?? 0),
    endTolerance: String(existing?.end_tolerance ?? 0),
    summary: existing?.summary ?? '',
  };
  const [fields, setFields] = useState<Fields>(initial);
  const [layouts, setLayouts] = useState<Schemas['LayoutView'][]>([]);
  useEffect(() => {
    dataOf(gateClient(props.credential).GET('/api/v1/layouts/{set}', { params: { path: { set: 'appointment' } } })).then(
      (found) => {
        setLayouts(found);
        setFields((current) => (current.layout ? current : { ...current, layout: found[0]?.layout_ref ?? '' }));
      },
      () => setLayouts([]),
    );
  }, []);
  const [issues, setIssues] = useState<Issue[]>([]);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const attempt = useRef<{ body: string; key: string } | null>(null);
  const set = (name: keyof Fields, value: string) => setFields((current) => ({ ...current, [name]: value }));
  const at = (name: keyof Fields) => issues.filter((issue) => fieldPath(issue.path) === FIELD_PATHS[name]);
  const placed = new Set(Object.values(FIELD_PATHS));
  const loose = issues.filter((issue) => !placed.has(fieldPath(issue.path)));

  /** Numbers typed are whole minutes; anything else is the form's own problem, said before anything is sent. */
  const minutes = (name: 'startTolerance' | 'endTolerance'): number | Issue => {
    const text = fields[name].trim() || '0';
    return /^\d{1,5}$/.test(text) ? Number(text) : { path: FIELD_PATHS[name], message: t('appointmentForm.wholeMinutes') };
  };

  const appointmentFields = () => {
    const start = minutes('startTolerance');
    const end = minutes('endTolerance');
    const problems = [start, end].filter((value): value is Issue => typeof value !== 'number');
    if (problems.length) return { problems };
    const all = {
      layout_ref: fields.layout,
      license_plate: fields.plate.trim() || null,
      summary: fields.summary.trim() || null,
      window_start: fromLocal(fields.start),
      window_end: fromLocal(fields.end),
      start_tolerance: start as number,
      end_tolerance: end as number,
    };
    if (!existing) return { values: all };
    // An update sends only what changed, so the history names exactly that.
    const before = {
      layout_ref: existing.layout_ref,
      license_plate: existing.license_plate,
      summary: existing.summary,
      window_start: fromLocal(toLocal(existing.window_start)),
      window_end: fromLocal(toLocal(existing.window_end)),
      start_tolerance: existing.start_tolerance,
      end_tolerance: existing.end_tolerance,
    };
    return {
      values: Object.fromEntries(Object.entries(all).filter(([key, value]) => before[key as keyof typeof before] !== value)),
    };
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const built = appointmentFields();
    if (built.problems) {
      setIssues(built.problems);
      setMessage({ ok: false, text: t('appointmentForm.notSaved') });
      return;
    }
    const client = gateClient(props.credential);
    setBusy(true);
    setMessage(null);
    try {
      if (existing) {
        if (Object.keys(built.values).length === 0) {
          setIssues([]);
          setMessage({ ok: true, text: t('appointmentForm.nothingChanged') });
          return;
        }
        await dataOf(client.PUT('/api/v1/appointments', { body: { ref: existing.ref, appointment: built.values } }));
        setMessage({ ok: true, text: t('appointmentForm.saved', { ref: existing.ref }) });
        setIssues([]);
        props.onSaved(existing.ref);
      } else {
        const body = {
          driver: {
            tax_id: fields.taxId.trim().replace(/[.\-/\s]/g, ''),
            driver_license_number: fields.licence.trim(),
            license_category: fields.category.trim(),
          },
          appointment: { ref: fields.ref.trim(), ...built.values, layout_ref: fields.layout },
        };
        const text = JSON.stringify(body);
        if (attempt.current?.body !== text) attempt.current = { body: text, key: newId() };
        await dataOf(client.POST('/api/v1/appointments', { params: { header: { 'Idempotency-Key': attempt.current.key } }, body }));
        attempt.current = null;
        setIssues([]);
        props.onSaved(body.appointment.ref);
      }
    } catch (error) {
      const unanswered =
        error instanceof ApiError && (error.status === 0 || error.status >= 500 || error.code === 'IDEMPOTENCY_KEY_IN_USE');
      if (!unanswered) attempt.current = null;
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        // A problem at a field of the form is said in words at that field; one elsewhere keeps the service's words.
        const fieldOf = new Map(Object.entries(FIELD_PATHS).map(([name, path]) => [path, name as keyof Fields]));
        setIssues(
          issuesOf(error).map((issue) => {
            const name = fieldOf.get(fieldPath(issue.path));
            return name ? { path: FIELD_PATHS[name], message: t(FIELD_RULES[name]) } : issue;
          }),
        );
        setMessage({ ok: false, text: t('appointmentForm.notSaved') });
      } else if (error instanceof ApiError && error.code === 'DUPLICATE_KEY') {
        setIssues([{ path: FIELD_PATHS.ref, message: t('appointmentForm.refTaken', { ref: fields.ref.trim() }) }]);
        setMessage({ ok: false, text: t('appointmentForm.notSaved') });
      } else if (error instanceof ApiError && error.code === 'INVALID_LAYOUT_REF') {
        setIssues([{ path: FIELD_PATHS.layout, message: t('appointmentForm.layoutGone') }]);
        setMessage({ ok: false, text: t('appointmentForm.notSaved') });
      } else {
        setIssues([]);
        // A slot full or closed by a capacity rule is explained with the slot it names.
        setMessage({ ok: false, text: explainBooking(i18n, error, (iso) => i18n.time(iso)) });
      }
    } finally {
      setBusy(false);
    }
  };

  const field = (
    name: keyof Fields,
    label: MessageKey,
    extra: { type?: 'text' | 'datetime-local'; inputMode?: 'numeric'; placeholder?: string; hint?: string } = {},
  ) => (
    <TextField
      id={`appointment-${name}`}
      label={t(label)}
      value={fields[name]}
      issues={at(name)}
      {...extra}
      onInput={(v) => set(name, v)}
    />
  );

  const title = existing ? t('appointmentForm.editTitle', { ref: existing.ref }) : t('appointmentForm.newTitle');
  return (
    <form class="appointment-form stack" onSubmit={(event) => void save(event)} noValidate aria-label={title}>
      <div class="row">
        <h3>{title}</h3>
        <button type="button" class="quiet" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
      <fieldset>
        <legend>{t('appointmentForm.driver')}</legend>
        {existing ? (
          <p>
            {t('appointmentForm.driverIs', { taxId: formatTaxId(props.editing!.driver.tax_id) })}{' '}
            <span class="muted">{t('appointmentForm.driverFixed')}</span>
          </p>
        ) : (
          <div class="row">
            {field('taxId', 'appointmentForm.taxId', { inputMode: 'numeric', hint: t('appointmentForm.taxIdHint') })}
            {field('licence', 'appointmentForm.licence')}
            {field('category', 'appointmentForm.category', { placeholder: 'E' })}
          </div>
        )}
      </fieldset>
      <fieldset>
        <legend>{t('appointmentForm.appointment')}</legend>
        <div class="row">
          {!existing && field('ref', 'appointmentForm.ref')}
          <div class="stack">
            <label for="appointment-layout">{t('appointmentForm.layout')}</label>
            <select
              id="appointment-layout"
              value={fields.layout}
              aria-invalid={at('layout').length > 0 || undefined}
              onChange={(e) => set('layout', e.currentTarget.value)}
            >
              {layouts.map((layout) => (
                <option key={layout.layout_ref} value={layout.layout_ref}>
                  {layout.name || layout.layout_ref}
                </option>
              ))}
            </select>
            {at('layout').map((issue, i) => (
              <p key={i} class="error" role="alert">
                {issue.message}
              </p>
            ))}
          </div>
          {field('plate', 'appointmentForm.plate')}
        </div>
        <div class="row">
          {field('start', 'appointmentForm.start', { type: 'datetime-local' })}
          {field('end', 'appointmentForm.end', { type: 'datetime-local' })}
          {field('startTolerance', 'appointmentForm.startTolerance', { inputMode: 'numeric' })}
          {field('endTolerance', 'appointmentForm.endTolerance', { inputMode: 'numeric' })}
        </div>
        {field('summary', 'appointmentForm.summary')}
      </fieldset>
      <Issues issues={loose} />
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {existing ? t('appointmentForm.save') : t('appointmentForm.create')}
        </button>
      </div>
    </form>
  );
}
