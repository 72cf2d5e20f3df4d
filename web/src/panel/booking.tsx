import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Credential, type Issue, issuesOf, newId } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainBooking, explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import { useLatest } from '../shared/latest.js';
import type { Schemas } from '../shared/schemas.js';
import { mondayOf, todayIn, useTemporal, weekIn } from '../shared/zoned.js';
import { useChanges } from './live.js';
import { Legend } from './rule-calendar.js';
import { WeekGrid, WeekNav, weekCaption } from './week-grid.js';
import { TextField } from './fields.js';

type Terminal = Schemas['BookableTerminalView'];
type Rule = Schemas['BookableRuleView'];
type Slot = Schemas['CarrierSlotView'];

/** A slot on the rule's clock, as a person reads it: its date and times, in the language. */
export function slotWords(language: string, zone: string) {
  const long = new Intl.DateTimeFormat(language, { dateStyle: 'full', timeStyle: 'short', timeZone: zone });
  return {
    when: (iso: string) => long.format(new Date(iso)),
    span: (start: string, end: string) => long.formatRange(new Date(start), new Date(end)),
  };
}

/**
 * A carrier books terminals' slots: the terminals whose rules let it (GET /api/v1/terminals), a week of a rule's
 * slots with what is free for it (its quota applied), and the booking form for a chosen free slot.
 */
export function Booking({ credential }: { credential: Credential }) {
  const i18n = useI18n();
  const { t } = i18n;
  const ready = useTemporal();
  const [terminals, setTerminals] = useState<Terminal[] | null>(null);
  const [terminalId, setTerminalId] = useState('');
  const [ruleRef, setRuleRef] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    dataOf(gateClient(credential).GET('/api/v1/terminals')).then(setTerminals, (error) => setProblem(explainError(i18n, error)));
  }, []);

  if (problem)
    return (
      <p class="error" role="alert">
        {problem}
      </p>
    );
  if (!ready || terminals === null) return <p class="muted">{t('common.loading')}</p>;
  if (terminals.length === 0)
    return (
      <div class="stack">
        <p>{t('booking.noTerminals')}</p>
        <p class="muted">{t('booking.howToBeListed')}</p>
      </div>
    );
  // The first terminal and rule until another is chosen.
  const terminal = terminals.find((candidate) => candidate.id === terminalId) ?? terminals[0];
  const rule = terminal.rules.find((candidate) => candidate.rule_ref === ruleRef) ?? terminal.rules[0];
  return (
    <div class="booking stack">
      <div class="row">
        <div class="stack">
          <label for="booking-terminal">{t('booking.terminal')}</label>
          <select id="booking-terminal" value={terminal.id} onChange={(e) => setTerminalId(e.currentTarget.value)}>
            {terminals.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </div>
        <div class="stack">
          <label for="booking-rule">{t('booking.rule')}</label>
          <select id="booking-rule" value={rule.rule_ref} onChange={(e) => setRuleRef(e.currentTarget.value)}>
            {terminal.rules.map((candidate) => (
              <option key={candidate.rule_ref} value={candidate.rule_ref}>
                {candidate.name ? `${candidate.name} (${candidate.rule_ref})` : candidate.rule_ref}
              </option>
            ))}
          </select>
        </div>
      </div>
      <RuleSlots key={`${terminal.id}/${rule.rule_ref}`} credential={credential} terminal={terminal} rule={rule} />
    </div>
  );
}

/** The week of one bookable rule, and the booking form once a free slot is chosen. */
function RuleSlots(props: { credential: Credential; terminal: Terminal; rule: Rule }) {
  const i18n = useI18n();
  const { t } = i18n;
  const zone = props.rule.time_zone;
  const [monday, setMonday] = useState(() => mondayOf(todayIn(zone)));
  const [slots, setSlots] = useState<Slot[] | null>(null);
  const [chosen, setChosen] = useState<Slot | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const changes = useChanges(props.credential, ['booking.']);
  const latest = useLatest();
  const week = weekIn(monday, zone);
  const words = slotWords(i18n.language, zone);

  useEffect(() => {
    const current = latest.begin();
    const request = gateClient(props.credential).GET('/api/v1/terminals/{terminal_id}/availability', {
      params: { path: { terminal_id: props.terminal.id }, query: { from: week.from, to: week.to } },
    });
    dataOf(request).then(
      (rules) => {
        if (!current()) return;
        setSlots(rules.find((rule) => rule.rule_ref === props.rule.rule_ref)?.slots ?? []);
        setProblem(null);
      },
      (error) => current() && setProblem(explainBooking(i18n, error, words.when)),
    );
  }, [monday, changes, reloads]);

  const title = props.rule.name ?? props.rule.rule_ref;
  return (
    <section class="stack" aria-labelledby="booking-week-title">
      <h2 id="booking-week-title">{t('booking.weekTitle', { rule: title, terminal: props.terminal.name })}</h2>
      <p class="muted">
        {t('calendar.zoneNote', { zone })}{' '}
        {props.rule.carrier_quota !== null && t('booking.quotaNote', { percent: Math.round(props.rule.carrier_quota * 100) })}
      </p>
      <div class="row">
        <WeekNav monday={monday} zone={zone} onChange={setMonday} />
        <button type="button" onClick={() => setReloads((n) => n + 1)}>
          {t('booking.refresh')}
        </button>
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {chosen && (
        <BookingForm
          key={chosen.start}
          credential={props.credential}
          terminal={props.terminal}
          rule={props.rule}
          slot={chosen}
          words={words}
          onBooked={() => setReloads((n) => n + 1)}
          onClose={() => setChosen(null)}
        />
      )}
      <Legend />
      {slots === null ? (
        <p class="muted">{t('common.loading')}</p>
      ) : (
        <WeekGrid
          caption={weekCaption(i18n.language, t, week.days, zone, title)}
          slots={slots}
          zone={zone}
          days={week.days}
          cell={(slot, time) => {
            const quotaUsed = slot.open && slot.free === 0 && slot.quota !== null && slot.booked_by_you >= slot.quota;
            const full = slot.open && slot.free === 0;
            return {
              class: `slot ${slot.open ? 'open' : 'closed'}${full ? ' full' : ''}${chosen?.start === slot.start ? ' chosen' : ''}`,
              content: !slot.open ? (
                <span class="tag">{t('calendar.closed')}</span>
              ) : full ? (
                <span class="tag">{quotaUsed ? t('booking.quotaUsed') : t('calendar.full')}</span>
              ) : (
                <button type="button" class="slot-button" aria-pressed={chosen?.start === slot.start} onClick={() => setChosen(slot)}>
                  {t('booking.free', { free: slot.free, time })}
                  <span class="visually-hidden">: {t('booking.pick', { when: words.when(slot.start) })}</span>
                </button>
              ),
            };
          }}
        />
      )}
    </section>
  );
}

interface BookingFields {
  taxId: string;
  licence: string;
  category: string;
  ref: string;
  layout: string;
  plate: string;
  summary: string;
}

/** Where the service's VALIDATION_ERROR paths of one booking lead in the form. */
const FIELD_PATHS: Record<keyof BookingFields, string> = {
  taxId: 'driver.tax_id',
  licence: 'driver.driver_license_number',
  category: 'driver.license_category',
  ref: 'appointment.ref',
  layout: 'appointment.layout_ref',
  plate: 'appointment.license_plate',
  summary: 'appointment.summary',
};

/**
 * The booking of one slot: the driver and the appointment (its window the slot's), sent with an Idempotency-Key
 * that stays the same while the body does and no answer came, so pressing Book again after a lost answer books once
 * (and after a refusal, asks again).
 */
function BookingForm(props: {
  credential: Credential;
  terminal: Terminal;
  rule: Rule;
  slot: Slot;
  words: ReturnType<typeof slotWords>;
  onBooked: () => void;
  onClose: () => void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const layouts = props.terminal.layouts.filter((layout) => !props.rule.layout_refs || props.rule.layout_refs.includes(layout.layout_ref));
  const empty: BookingFields = {
    taxId: '',
    licence: '',
    category: '',
    ref: '',
    layout: layouts[0]?.layout_ref ?? '',
    plate: '',
    summary: '',
  };
  const [fields, setFields] = useState<BookingFields>(empty);
  const [issues, setIssues] = useState<Issue[]>([]);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const attempt = useRef<{ body: string; key: string } | null>(null);

  const set = (name: keyof BookingFields, value: string) => setFields((current) => ({ ...current, [name]: value }));
  const at = (name: keyof BookingFields) => issues.filter((issue) => issue.path === FIELD_PATHS[name]);
  const placed = new Set(Object.values(FIELD_PATHS));
  const loose = issues.filter((issue) => !placed.has(issue.path));

  const book = async (event: Event) => {
    event.preventDefault();
    const body = {
      driver: {
        tax_id: fields.taxId.trim().replace(/[.\-/\s]/g, ''),
        driver_license_number: fields.licence.trim(),
        license_category: fields.category.trim(),
      },
      appointment: {
        ref: fields.ref.trim(),
        layout_ref: fields.layout,
        window_start: props.slot.start,
        window_end: props.slot.end,
        ...(fields.plate.trim() ? { license_plate: fields.plate.trim() } : {}),
        ...(fields.summary.trim() ? { summary: fields.summary.trim() } : {}),
      },
    };
    const text = JSON.stringify(body);
    if (attempt.current?.body !== text) attempt.current = { body: text, key: newId() };
    setBusy(true);
    setMessage(null);
    try {
      await dataOf(
        gateClient(props.credential).POST('/api/v1/terminals/{terminal_id}/bookings', {
          params: { path: { terminal_id: props.terminal.id }, header: { 'Idempotency-Key': attempt.current.key } },
          body,
        }),
      );
      attempt.current = null;
      setIssues([]);
      setFields({ ...empty, layout: fields.layout });
      setMessage({
        ok: true,
        text: t('booking.booked', { ref: body.appointment.ref, when: props.words.span(props.slot.start, props.slot.end) }),
      });
      props.onBooked();
    } catch (error) {
      // An answer is kept for its key: only a request that got none (or one still in progress) is sent again with it.
      const unanswered =
        error instanceof ApiError && (error.status === 0 || error.status >= 500 || error.code === 'IDEMPOTENCY_KEY_IN_USE');
      if (!unanswered) attempt.current = null;
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        setIssues(issuesOf(error));
        setMessage({ ok: false, text: t('booking.notBooked') });
      } else {
        setIssues([]);
        setMessage({ ok: false, text: explainBooking(i18n, error, props.words.when) });
      }
    } finally {
      setBusy(false);
    }
  };

  const field = (name: keyof BookingFields, label: string, extra: { placeholder?: string; inputMode?: 'numeric' } = {}) => (
    <TextField id={`booking-${name}`} label={label} value={fields[name]} issues={at(name)} {...extra} onInput={(v) => set(name, v)} />
  );

  return (
    <form class="booking-form stack" onSubmit={(event) => void book(event)} noValidate aria-labelledby="booking-form-title">
      <div class="row">
        <h3 id="booking-form-title">{t('booking.formTitle', { when: props.words.span(props.slot.start, props.slot.end) })}</h3>
        <button type="button" class="quiet" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
      <fieldset>
        <legend>{t('booking.driver')}</legend>
        <div class="row">
          {field('taxId', t('booking.taxId'), { inputMode: 'numeric' })}
          {field('licence', t('booking.licence'))}
          {field('category', t('booking.category'), { placeholder: 'E' })}
        </div>
      </fieldset>
      <fieldset>
        <legend>{t('booking.appointment')}</legend>
        <div class="row">
          {field('ref', t('booking.ref'), { placeholder: t('booking.refExample') })}
          <div class="stack">
            <label for="booking-layout">{t('booking.layout')}</label>
            <select
              id="booking-layout"
              value={fields.layout}
              aria-invalid={at('layout').length > 0 || undefined}
              onChange={(e) => set('layout', e.currentTarget.value)}
            >
              {layouts.map((layout) => (
                <option key={layout.layout_ref} value={layout.layout_ref}>
                  {layout.name ? `${layout.name} (${layout.layout_ref})` : layout.layout_ref}
                </option>
              ))}
            </select>
          </div>
          {field('plate', t('booking.plate'))}
          {field('summary', t('booking.summary'))}
        </div>
      </fieldset>
      {message && (
        <div class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          <p>{message.text}</p>
          {loose.length > 0 && (
            <ul>
              {loose.map((issue, i) => (
                <li key={i}>{issue.message}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {t('booking.book')}
        </button>
      </div>
    </form>
  );
}
