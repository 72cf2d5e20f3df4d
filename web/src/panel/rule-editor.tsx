import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential, type Issue, issuesOf } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';
import { deviceZone, instantOf, localInput, zoneNames } from '../shared/zoned.js';
import { Issues, TextField } from './fields.js';

export type RuleView = Schemas['CapacityRuleView'];
type RuleBody = Schemas['PutCapacityRuleDto'];

interface HoursForm {
  days: number[];
  from: string;
  to: string;
}
interface ExceptionForm {
  /** `datetime-local` values on the rule's clock. */
  from: string;
  to: string;
  capacity: string;
}
interface RuleForm {
  ref: string;
  name: string;
  layouts: string[];
  zone: string;
  slotMinutes: string;
  capacity: string;
  alwaysOpen: boolean;
  hours: HoursForm[];
  exceptions: ExceptionForm[];
  carriers: string[];
  quota: string;
}

const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WORKING_HOURS: HoursForm = { days: [1, 2, 3, 4, 5], from: '08:00', to: '18:00' };

function formOf(rule: RuleView | null): RuleForm {
  if (!rule)
    return {
      ref: '',
      name: '',
      layouts: [],
      zone: deviceZone(),
      slotMinutes: '60',
      capacity: '10',
      alwaysOpen: true,
      hours: [],
      exceptions: [],
      carriers: [],
      quota: '',
    };
  return {
    ref: rule.rule_ref,
    name: rule.name ?? '',
    layouts: rule.layout_refs ?? [],
    zone: rule.time_zone,
    slotMinutes: String(rule.slot_minutes),
    capacity: String(rule.capacity),
    alwaysOpen: rule.open_hours === null,
    hours: (rule.open_hours ?? []).map((hours) => ({ ...hours })),
    exceptions: (rule.exceptions ?? []).map((exception) => ({
      from: localInput(exception.from, rule.time_zone),
      to: localInput(exception.to, rule.time_zone),
      capacity: String(exception.capacity),
    })),
    carriers: rule.bookable_by ?? [],
    quota: rule.carrier_quota === null ? '' : String(rule.carrier_quota),
  };
}

/** A number field as the service should judge it: a number when it reads as one, else the text as typed. */
const numberOf = (text: string): number =>
  text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number);

/**
 * The body PUT sends. Exceptions' local times are read on the rule's clock; one the browser cannot read (no such
 * zone) is sent as typed, and the service names what is wrong.
 */
function bodyOf(form: RuleForm): RuleBody {
  return {
    name: form.name.trim() || null,
    layout_refs: form.layouts.length ? form.layouts : null,
    time_zone: form.zone.trim(),
    slot_minutes: numberOf(form.slotMinutes),
    capacity: numberOf(form.capacity),
    open_hours: form.alwaysOpen ? null : form.hours,
    exceptions: form.exceptions.length
      ? form.exceptions.map((exception) => ({
          from: instantOf(exception.from, form.zone.trim()) ?? exception.from,
          to: instantOf(exception.to, form.zone.trim()) ?? exception.to,
          capacity: numberOf(exception.capacity),
        }))
      : null,
    bookable_by: form.carriers.length ? form.carriers : null,
    carrier_quota: form.quota.trim() === '' ? null : numberOf(form.quota),
  };
}

/** The paths of a rule's body that the editor shows a problem at; any other is listed above the form. */
const PLACED =
  /^(rule_ref|name|layout_refs(\[\d+\])?|time_zone|slot_minutes|capacity|open_hours(\[\d+\](\.(days(\[\d+\])?|from|to))?)?|exceptions(\[\d+\](\.(from|to|capacity))?)?|bookable_by(\[\d+\])?|carrier_quota)$/;

/** The carrier accounts' names, by id (GET /api/v1/carriers, 100 ids a call); ids that are no carrier's are absent. */
async function carrierNames(credential: Credential, ids: string[]): Promise<Map<string, string>> {
  const client = gateClient(credential);
  const names = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 100) {
    const found = await dataOf(client.GET('/api/v1/carriers', { params: { query: { ids: ids.slice(i, i + 100) } } }));
    for (const carrier of found) names.set(carrier.id, carrier.name);
  }
  return names;
}

/**
 * A capacity rule edited whole, saved with PUT (the whole rule). What the service refuses (VALIDATION_ERROR) is shown
 * at each field its path names (`open_hours[1].to`, `exceptions[2]`, `bookable_by[0]`).
 */
export function RuleEditor(props: {
  credential: Credential;
  rule: RuleView | null;
  takenRefs: string[];
  layouts: Schemas['LayoutView'][];
  onSaved: (rule: RuleView) => void;
  onCalendar: (ref: string) => void;
  onClose: () => void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const [form, setForm] = useState<RuleForm>(() => formOf(props.rule));
  const [saved, setSaved] = useState<string | null>(props.rule?.rule_ref ?? null);
  const [issues, setIssues] = useState<Issue[]>([]);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [names, setNames] = useState<Map<string, string> | null>(null);
  const [newCarrier, setNewCarrier] = useState('');
  const zones = zoneNames();

  useEffect(() => {
    // Only ids that can be an account's are asked about; any other is no carrier's anyway.
    const ids = form.carriers.filter((id) => UUID.test(id));
    if (ids.length === 0) setNames(new Map());
    else carrierNames(props.credential, ids).then(setNames, () => setNames(new Map()));
  }, [form.carriers.join()]);

  const set = <K extends keyof RuleForm>(name: K, value: RuleForm[K]) => setForm((current) => ({ ...current, [name]: value }));
  const at = (path: string) => issues.filter((issue) => issue.path === path);
  const under = (path: string) => issues.filter((issue) => issue.path === path || issue.path.startsWith(`${path}[`));
  const loose = issues.filter((issue) => !PLACED.test(issue.path));

  const save = async (event: Event) => {
    event.preventDefault();
    const ref = saved ?? form.ref.trim();
    setMessage(null);
    if (!saved) {
      // The service judges the ref (its length, a word of the routes); an empty one would be another route, and an
      // existing one would be replaced.
      if (!ref) return setIssues([{ path: 'rule_ref', message: t('rules.refLength') }]);
      if (props.takenRefs.includes(ref)) return setIssues([{ path: 'rule_ref', message: t('rules.refTaken', { ref }) }]);
    }
    setBusy(true);
    try {
      const rule = await dataOf(
        gateClient(props.credential).PUT('/api/v1/capacity/{rule_ref}', { params: { path: { rule_ref: ref } }, body: bodyOf(form) }),
      );
      setIssues([]);
      setSaved(rule.rule_ref);
      setForm(formOf(rule));
      setMessage({ ok: true, text: t('rules.saved') });
      props.onSaved(rule);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        setIssues(issuesOf(error));
        setMessage({ ok: false, text: t('rules.notSaved') });
      } else if (error instanceof ApiError && error.code === 'INVALID_LAYOUT_REF') {
        const missing = ((error.details ?? {}) as { layout_refs?: string[] }).layout_refs ?? [];
        setIssues([{ path: 'layout_refs', message: t('rules.layoutGone', { refs: missing.join(', ') }) }]);
        setMessage({ ok: false, text: t('rules.notSaved') });
      } else {
        setIssues([]);
        setMessage({ ok: false, text: explainError(i18n, error) });
      }
    } finally {
      setBusy(false);
    }
  };

  const addCarrier = () => {
    const id = newCarrier.trim().toLowerCase();
    if (!id || form.carriers.includes(id)) return;
    set('carriers', [...form.carriers, id]);
    setNewCarrier('');
  };
  const hoursAt = (i: number, change: Partial<HoursForm>) =>
    set(
      'hours',
      form.hours.map((hours, k) => (k === i ? { ...hours, ...change } : hours)),
    );
  const exceptionAt = (i: number, change: Partial<ExceptionForm>) =>
    set(
      'exceptions',
      form.exceptions.map((exception, k) => (k === i ? { ...exception, ...change } : exception)),
    );
  const weekday = (day: number) =>
    new Intl.DateTimeFormat(i18n.language, { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, day)));

  return (
    <form class="rule-editor stack" onSubmit={(event) => void save(event)} noValidate aria-labelledby="rule-editor-title">
      <div class="row">
        <h2 id="rule-editor-title">{saved ? t('rules.editTitle', { ref: saved }) : t('rules.newTitle')}</h2>
        <button type="button" class="quiet" onClick={props.onClose}>
          {t('rules.backToList')}
        </button>
        {saved && (
          <button type="button" onClick={() => props.onCalendar(saved)}>
            {t('rules.calendar')}
          </button>
        )}
      </div>
      {message && (
        <div class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          <p>{message.text}</p>
          {loose.length > 0 && (
            <ul>
              {loose.map((issue, i) => (
                <li key={i}>
                  <code>{issue.path}</code> {issue.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="rule-fields">
        {!saved && (
          <TextField id="rule-ref" label={t('rules.ref')} value={form.ref} issues={at('rule_ref')} onInput={(v) => set('ref', v)} />
        )}
        <TextField id="rule-name" label={t('rules.name')} value={form.name} issues={at('name')} onInput={(v) => set('name', v)} />
        <div class="stack">
          <label for="rule-zone">{t('rules.zone')}</label>
          <input
            id="rule-zone"
            list="rule-zones"
            value={form.zone}
            autocomplete="off"
            spellcheck={false}
            aria-invalid={at('time_zone').length > 0 || undefined}
            aria-describedby={['rule-zone-hint', at('time_zone').length ? 'rule-zone-issues' : ''].join(' ').trim()}
            onInput={(e) => set('zone', e.currentTarget.value)}
          />
          <datalist id="rule-zones">
            {zones.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
          <span id="rule-zone-hint" class="muted">
            {t('rules.zoneHint')}
          </span>
          <Issues id="rule-zone-issues" issues={at('time_zone')} />
        </div>
        <TextField
          id="rule-slot-minutes"
          label={t('rules.slotMinutes')}
          type="number"
          value={form.slotMinutes}
          issues={at('slot_minutes')}
          onInput={(v) => set('slotMinutes', v)}
        />
        <TextField
          id="rule-capacity"
          label={t('rules.capacity')}
          type="number"
          value={form.capacity}
          issues={at('capacity')}
          onInput={(v) => set('capacity', v)}
        />
      </div>

      <fieldset aria-describedby={under('layout_refs').length ? 'rule-layouts-issues' : 'rule-layouts-hint'}>
        <legend>{t('rules.layouts')}</legend>
        <p id="rule-layouts-hint" class="muted">
          {t('rules.layoutsHint')}
        </p>
        {props.layouts.length === 0 && <p class="muted">{t('rules.noLayouts')}</p>}
        <div class="row">
          {props.layouts.map((layout) => (
            <label key={layout.layout_ref} class="check">
              <input
                type="checkbox"
                checked={form.layouts.includes(layout.layout_ref)}
                onChange={(e) =>
                  set(
                    'layouts',
                    e.currentTarget.checked
                      ? [...form.layouts, layout.layout_ref]
                      : form.layouts.filter((ref) => ref !== layout.layout_ref),
                  )
                }
              />{' '}
              {layout.name ? `${layout.name} (${layout.layout_ref})` : layout.layout_ref}
            </label>
          ))}
        </div>
        <Issues id="rule-layouts-issues" issues={under('layout_refs')} />
      </fieldset>

      <fieldset>
        <legend>{t('rules.openHours')}</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={form.alwaysOpen}
            onChange={(e) => {
              const always = e.currentTarget.checked;
              setForm((current) => ({
                ...current,
                alwaysOpen: always,
                hours: !always && current.hours.length === 0 ? [{ ...WORKING_HOURS }] : current.hours,
              }));
            }}
          />{' '}
          {t('rules.alwaysOpen')}
        </label>
        <Issues id="rule-hours-issues" issues={at('open_hours')} />
        {!form.alwaysOpen && (
          <>
            {form.hours.length === 0 && <p class="muted">{t('rules.neverOpen')}</p>}
            {form.hours.map((hours, i) => {
              const path = `open_hours[${i}]`;
              const label = t('rules.hoursEntry', { n: i + 1 });
              return (
                <fieldset key={i} class="entry" aria-label={label}>
                  <legend>{label}</legend>
                  <fieldset class="days" aria-describedby={under(`${path}.days`).length ? `rule-hours-${i}-days-issues` : undefined}>
                    <legend>{t('rules.days')}</legend>
                    {WEEKDAYS.map((day) => (
                      <label key={day} class="check">
                        <input
                          type="checkbox"
                          checked={hours.days.includes(day)}
                          onChange={(e) =>
                            hoursAt(i, {
                              days: e.currentTarget.checked
                                ? [...hours.days, day].sort((a, b) => a - b)
                                : hours.days.filter((d) => d !== day),
                            })
                          }
                        />{' '}
                        {weekday(day)}
                      </label>
                    ))}
                    <Issues id={`rule-hours-${i}-days-issues`} issues={under(`${path}.days`)} />
                  </fieldset>
                  <div class="row">
                    <TextField
                      id={`rule-hours-${i}-from`}
                      label={t('rules.from')}
                      value={hours.from}
                      placeholder="08:00"
                      issues={at(`${path}.from`)}
                      onInput={(v) => hoursAt(i, { from: v })}
                    />
                    <TextField
                      id={`rule-hours-${i}-to`}
                      label={t('rules.to')}
                      value={hours.to}
                      placeholder="18:00"
                      issues={at(`${path}.to`)}
                      onInput={(v) => hoursAt(i, { to: v })}
                    />
                  </div>
                  <Issues id={`rule-hours-${i}-issues`} issues={at(path)} />
                  <button
                    type="button"
                    class="danger"
                    aria-label={t('rules.removeNamed', { name: label })}
                    onClick={() =>
                      set(
                        'hours',
                        form.hours.filter((_, k) => k !== i),
                      )
                    }
                  >
                    {t('rules.remove')}
                  </button>
                </fieldset>
              );
            })}
            <button type="button" onClick={() => set('hours', [...form.hours, { ...WORKING_HOURS }])}>
              {t('rules.addHours')}
            </button>
          </>
        )}
        <p class="muted">{t('rules.hoursHint')}</p>
      </fieldset>

      <fieldset>
        <legend>{t('rules.exceptions')}</legend>
        <p class="muted">{t('rules.exceptionsHint', { zone: form.zone })}</p>
        <Issues id="rule-exceptions-issues" issues={at('exceptions')} />
        {form.exceptions.map((exception, i) => {
          const path = `exceptions[${i}]`;
          const label = t('rules.exceptionEntry', { n: i + 1 });
          return (
            <fieldset key={i} class="entry" aria-label={label}>
              <legend>{label}</legend>
              <div class="row">
                <TextField
                  id={`rule-exception-${i}-from`}
                  label={t('rules.from')}
                  type="datetime-local"
                  value={exception.from}
                  issues={at(`${path}.from`)}
                  onInput={(v) => exceptionAt(i, { from: v })}
                />
                <TextField
                  id={`rule-exception-${i}-to`}
                  label={t('rules.to')}
                  type="datetime-local"
                  value={exception.to}
                  issues={at(`${path}.to`)}
                  onInput={(v) => exceptionAt(i, { to: v })}
                />
                <TextField
                  id={`rule-exception-${i}-capacity`}
                  label={t('rules.exceptionCapacity')}
                  type="number"
                  value={exception.capacity}
                  issues={at(`${path}.capacity`)}
                  onInput={(v) => exceptionAt(i, { capacity: v })}
                />
              </div>
              <Issues id={`rule-exception-${i}-issues`} issues={at(path)} />
              <button
                type="button"
                class="danger"
                aria-label={t('rules.removeNamed', { name: label })}
                onClick={() =>
                  set(
                    'exceptions',
                    form.exceptions.filter((_, k) => k !== i),
                  )
                }
              >
                {t('rules.remove')}
              </button>
            </fieldset>
          );
        })}
        <button type="button" onClick={() => set('exceptions', [...form.exceptions, { from: '', to: '', capacity: '0' }])}>
          {t('rules.addException')}
        </button>
      </fieldset>

      <fieldset>
        <legend>{t('rules.carriers')}</legend>
        <p class="muted">{t('rules.carriersHint')}</p>
        <Issues id="rule-carriers-issues" issues={at('bookable_by')} />
        {form.carriers.length > 0 && (
          <ul class="carriers">
            {form.carriers.map((id, i) => {
              const name = names?.get(id);
              const problems = at(`bookable_by[${i}]`);
              return (
                <li key={id} class="row">
                  <span>
                    {name ?? (names ? <em>{t('rules.notACarrier')}</em> : t('common.loading'))} <code>{id}</code>
                  </span>
                  <button
                    type="button"
                    class="danger"
                    aria-label={t('rules.removeNamed', { name: name ?? id })}
                    onClick={() =>
                      set(
                        'carriers',
                        form.carriers.filter((c) => c !== id),
                      )
                    }
                  >
                    {t('rules.remove')}
                  </button>
                  <Issues id={`rule-carrier-${i}-issues`} issues={problems} />
                </li>
              );
            })}
          </ul>
        )}
        <div class="row">
          <label for="rule-new-carrier">{t('rules.carrierId')}</label>
          <input
            id="rule-new-carrier"
            value={newCarrier}
            spellcheck={false}
            autocomplete="off"
            onInput={(e) => setNewCarrier(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                addCarrier();
              }
            }}
          />
          <button type="button" onClick={addCarrier}>
            {t('rules.addCarrier')}
          </button>
        </div>
        <TextField
          id="rule-quota"
          label={t('rules.quota')}
          type="number"
          value={form.quota}
          hint={t('rules.quotaHint', { half: 0.5 })}
          issues={at('carrier_quota')}
          onInput={(v) => set('quota', v)}
        />
      </fieldset>

      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {t('rules.save')}
        </button>
      </div>
    </form>
  );
}
