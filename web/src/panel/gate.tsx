import { useEffect, useId, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { formatTaxId } from '../shared/format.js';
import { type MessageKey, parseInstant, type Translator, useI18n } from '../shared/i18n.js';
import { StatusWord } from '../shared/layout.js';
import type { Schemas } from '../shared/schemas.js';
import { useMay } from './access.js';
import { ListTable } from './list-table.js';
import { liveChanges } from './live.js';

type Referral = Schemas['ReferralView'];
type Read = Schemas['GateReadView'];
type Item = Schemas['AppointmentItemView'];
type Status = Item['appointment']['status'];

/** Every status but Deleted: the page's lists never show deleted appointments. */
const KEPT: Status[] = ['SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED'];
/** The statuses a read can still act on: those a clerk may resolve a referral with. */
const OPEN: Status[] = ['SCHEDULED', 'CHECKED_IN', 'ON_GOING'];
const PAGE = 100;

const STAGE_WORDS: Record<Read['stage'], MessageKey> = {
  arrival: 'gate.stage.arrival',
  entry: 'gate.stage.entry',
  exit: 'gate.stage.exit',
};
const REASON_WORDS: Record<Referral['reason'], MessageKey> = {
  ambiguous: 'gate.reason.ambiguous',
  low_confidence: 'gate.reason.low_confidence',
  wrong_status: 'gate.reason.wrong_status',
  terminal_rejected: 'gate.reason.terminal_rejected',
  lookalike: 'gate.reason.lookalike',
  outside_window: 'gate.reason.outside_window',
  no_match: 'gate.reason.no_match',
};

/** Today, midnight to midnight on this device's clock. */
function today(): { from: string; to: string } {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { from: start.toISOString(), to: end.toISOString() };
}

/** A stamp as a clerk reads it: the time alone when it is today, else date and time; a dash when unset. */
function clock(i18n: Translator, iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = parseInstant(iso);
  if (date.toDateString() !== new Date().toDateString()) return i18n.time(iso);
  return new Intl.DateTimeFormat(i18n.language, { timeStyle: 'short' }).format(date);
}

const percent = (i18n: Translator, value: number) =>
  new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 0 }).format(value);

/**
 * What the terminal answered when a referral's check-in did not go through (`detail` is `CODE: reason`): the terminal's
 * own reason when it refused, else what happened in words.
 */
function detailOf({ t }: Translator, referral: Referral): string | null {
  if (referral.reason !== 'terminal_rejected' || !referral.detail) return null;
  const [code, ...rest] = referral.detail.split(': ');
  if (code === 'CHECKIN_REJECTED') return t('gate.detail.refused', { reason: rest.join(': ') });
  if (code === 'TERMINAL_OFFLINE') return t('gate.detail.offline');
  if (code === 'TERMINAL_TIMEOUT') return t('gate.detail.timeout');
  return t('gate.detail.failed');
}

/** Why a resolution was refused, in the clerk's words: the referral stays open. */
function explainResolve(i18n: Translator, error: unknown, ref: string | null): string {
  const { t } = i18n;
  if (!(error instanceof ApiError)) return explainError(i18n, error);
  const details = (error.details ?? {}) as { from?: string; reason?: string };
  switch (error.code) {
    case 'REFERRAL_RESOLVED':
      return t('gate.error.resolvedAlready');
    case 'REFERRAL_NOT_FOUND':
      return t('gate.error.gone');
    case 'INVALID_STATUS_TRANSITION':
      return t('gate.error.status', { ref: ref ?? '', status: i18n.status(details.from ?? '') });
    case 'APPOINTMENT_NOT_FOUND':
      return t('gate.error.notFound', { ref: ref ?? '' });
    case 'CHECKIN_REJECTED':
      return t('gate.error.refused', { reason: details.reason ?? '' });
    case 'TERMINAL_OFFLINE':
      return t('gate.error.offline');
    case 'TERMINAL_TIMEOUT':
      return t('gate.error.timeout');
    case 'CHECKIN_FAILED':
      return t('gate.error.failed');
    default:
      return explainError(i18n, error);
  }
}

/**
 * The Gate page (docs/web.md#the-gate-page): the plate reads the service referred to a clerk, each with its picture, its
 * readings and the appointments that nearly match, resolved with one press; a search by plate in any spelling; who is
 * inside and today's arrivals. It follows the account's events on the panel's socket (gate.* and the appointments'),
 * never polling. Whoever may not write `gate` (a viewer) sees it all without the buttons that act.
 */
export function Gate({ credential }: { credential: Credential }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [referrals, setReferrals] = useState<Referral[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [live, setLive] = useState<'live' | 'connecting' | null>(null);
  const [gateChanges, setGateChanges] = useState(0);
  const [truckChanges, setTruckChanges] = useState(0);
  const [done, setDone] = useState('');

  useEffect(
    () =>
      liveChanges(credential, setLive, (types) => {
        if (types.some((type) => type.startsWith('gate.'))) setGateChanges((n) => n + 1);
        if (types.some((type) => type.startsWith('appointment.') || type.startsWith('checkin.'))) setTruckChanges((n) => n + 1);
      }),
    [],
  );
  useEffect(() => {
    dataOf(gateClient(credential).GET('/api/v1/gate/referrals', { params: { query: { status: 'open', limit: PAGE } } })).then(
      (page) => {
        setReferrals(page.items);
        setProblem(null);
      },
      (error) => setProblem(explainError(i18n, error)),
    );
  }, [gateChanges]);

  const day = today();
  return (
    <div class="gate-page">
      <p class="muted live-mode" data-live={live ?? ''}>
        {live === 'live' ? t('gate.live') : live === 'connecting' ? t('gate.connecting') : ''}
      </p>
      <p class="success" role="status">
        {done}
      </p>
      <section class="gate-referrals" aria-labelledby="gate-referrals-title">
        <h2 id="gate-referrals-title">
          {t('gate.referrals.title')} {referrals && <span class="muted">({t('gate.referrals.count', { count: referrals.length })})</span>}
        </h2>
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        {referrals === null ? (
          <p class="muted">{t('common.loading')}</p>
        ) : referrals.length === 0 ? (
          <p class="notice">{t('gate.referrals.none')}</p>
        ) : (
          referrals.map((referral) => (
            <ReferralCard
              key={referral.id}
              credential={credential}
              referral={referral}
              onDone={(text) => {
                setDone(text);
                setGateChanges((n) => n + 1);
              }}
            />
          ))
        )}
      </section>
      <PlateSearch credential={credential} version={truckChanges} />
      <Trucks
        credential={credential}
        version={truckChanges}
        caption={t('gate.inside.title')}
        empty={t('gate.inside.none')}
        query={{ status: ['ON_GOING'] }}
      />
      <Trucks
        credential={credential}
        version={truckChanges}
        caption={t('gate.arrivals.title')}
        empty={t('gate.arrivals.none')}
        query={{ status: KEPT, arrived_from: day.from, arrived_to: day.to }}
      />
    </div>
  );
}

/** A read's picture, fetched with the caller's credential (a key is a header an image tag cannot send). */
function ReadImage({ credential, read }: { credential: Credential; read: Read }) {
  const { t } = useI18n();
  const [source, setSource] = useState<string | null>(null);
  useEffect(() => {
    setSource(null);
    if (!read.image) return;
    let current = true;
    gateClient(credential)
      .GET('/api/v1/gate/reads/{read_id}/image', { params: { path: { read_id: read.read_id } }, parseAs: 'blob' })
      .then(({ data }) => {
        if (!(data instanceof Blob)) return;
        // As a data: address: the panel's pages load images only from the service or inline (its CSP).
        const reader = new FileReader();
        reader.onload = () => current && typeof reader.result === 'string' && setSource(reader.result);
        reader.readAsDataURL(data);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [read.read_id, read.updated_at]);
  if (source) return <img class="read-image" src={source} alt={t('gate.referral.image', { plate: read.plate })} />;
  return <p class="read-image no-image muted">{t('gate.referral.noImage')}</p>;
}

/**
 * One open referral: the read (picture, reading, alternative readings, where and when) beside the appointments that
 * nearly match, each with the one press that resolves the referral with it; another appointment found by its plate; or
 * closing it without one.
 */
function ReferralCard(props: { credential: Credential; referral: Referral; onDone: (text: string) => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const { referral } = props;
  const { read } = referral;
  const title = useId();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const detail = detailOf(i18n, referral);

  const resolve = async (body: Schemas['ResolveReferralDto']) => {
    setBusy(true);
    setProblem(null);
    try {
      const params = { path: { id: referral.id } };
      await dataOf(gateClient(props.credential).POST('/api/v1/gate/referrals/{id}/resolve', { params, body }));
      props.onDone(
        body.appointment_ref
          ? t('gate.resolved', { plate: read.plate, ref: body.appointment_ref })
          : t('gate.rejected', { plate: read.plate }),
      );
    } catch (error) {
      setProblem(explainResolve(i18n, error, body.appointment_ref ?? null));
      setBusy(false);
    }
  };
  const pick = may('gate:write') && !busy ? (ref: string) => void resolve({ appointment_ref: ref }) : undefined;

  return (
    <article class="referral" aria-labelledby={title} data-reason={referral.reason}>
      <header class="referral-head">
        <h3 id={title}>{t('gate.referral.label', { plate: read.plate })}</h3>
        <p class="referral-reason">
          {t(REASON_WORDS[referral.reason])}
          {detail && <span> {detail}</span>}
        </p>
      </header>
      <div class="referral-body">
        <div class="reading">
          <ReadImage credential={props.credential} read={read} />
          <dl class="read-facts">
            <div>
              <dt>{t('gate.read.plate')}</dt>
              <dd class="plate">{read.plate}</dd>
            </div>
            <div>
              <dt>{t('gate.read.confidence')}</dt>
              <dd>{percent(i18n, read.confidence)}</dd>
            </div>
            <div>
              <dt>{t('gate.read.stage')}</dt>
              <dd>{t(STAGE_WORDS[read.stage])}</dd>
            </div>
            <div>
              <dt>{t('gate.read.lane')}</dt>
              <dd>{read.lane}</dd>
            </div>
            <div>
              <dt>{t('gate.read.at')}</dt>
              <dd>{clock(i18n, read.read_at)}</dd>
            </div>
          </dl>
          {read.candidates.length > 0 && (
            <>
              <h4>{t('gate.read.others')}</h4>
              <ul class="other-readings">
                {read.candidates.map((reading, i) => (
                  <li key={i}>{t('gate.read.reading', { plate: reading.plate, confidence: percent(i18n, reading.confidence) })}</li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div class="nearly">
          <h4>{t('gate.candidates.title')}</h4>
          {referral.candidates.length === 0 ? (
            <p class="muted">{t('gate.candidates.none')}</p>
          ) : (
            <ul class="candidates">
              {referral.candidates.map((item) => (
                <Candidate key={item.appointment.ref} item={item} pick={pick} />
              ))}
            </ul>
          )}
          {may('gate:write') && <OtherAppointment credential={props.credential} plate={read.plate} pick={pick} />}
          {busy && (
            <p class="muted" role="status">
              {t('gate.resolving')}
            </p>
          )}
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          {may('gate:write') && (
            <div class="reject">
              <label>
                {t('gate.reject.note')}
                <input value={note} maxLength={1000} onInput={(e) => setNote(e.currentTarget.value)} />
              </label>
              <button
                type="button"
                class="danger big"
                disabled={busy}
                onClick={() => void resolve({ reject: true, ...(note.trim() ? { note: note.trim() } : {}) })}
              >
                {t('gate.reject')}
              </button>
            </div>
          )}
        </div>
      </div>
    </article>
  );
}

/** An appointment a referral may be resolved with: what tells it apart, and (for who may) the press that resolves it. */
function Candidate({ item, pick }: { item: Item; pick?: (ref: string) => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { appointment, driver } = item;
  return (
    <li class="candidate" data-ref={appointment.ref}>
      <div class="candidate-facts">
        <strong class="plate">{appointment.license_plate ?? '—'}</strong> <span>{appointment.ref}</span>{' '}
        <StatusWord status={appointment.status} />
        <div class="muted">
          {t('gate.candidate.window')}: {i18n.window(appointment.window_start, appointment.window_end)} · {t('gate.candidate.driver')}:{' '}
          {formatTaxId(driver.tax_id)}
        </div>
      </div>
      {pick && (
        <button type="button" class="primary big" onClick={() => pick(appointment.ref)}>
          {t('gate.candidate.resolve', { ref: appointment.ref })}
        </button>
      )}
    </li>
  );
}

/** For a referral none of whose candidates is right: the open appointments of a plate typed in any spelling. */
function OtherAppointment(props: { credential: Credential; plate: string; pick?: (ref: string) => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const id = useId();
  const [plate, setPlate] = useState('');
  const [found, setFound] = useState<Item[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const search = async (event: Event) => {
    event.preventDefault();
    if (!plate.trim()) return;
    try {
      const query = { plate: plate.trim(), status: OPEN, limit: 20 };
      setFound((await dataOf(gateClient(props.credential).GET('/api/v1/appointments', { params: { query } }))).items);
      setProblem(null);
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };
  return (
    <form class="other-appointment" onSubmit={(e) => void search(e)} aria-label={t('gate.other.label')}>
      <div class="row">
        <label for={id}>{t('gate.other.label')}</label>
        <input id={id} value={plate} autoComplete="off" autoCapitalize="characters" onInput={(e) => setPlate(e.currentTarget.value)} />
        <button type="submit">{t('gate.other.search')}</button>
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {found &&
        (found.length === 0 ? (
          <p class="muted">{t('gate.other.none')}</p>
        ) : (
          <ul class="candidates">
            {found.map((item) => (
              <Candidate key={item.appointment.ref} item={item} pick={props.pick} />
            ))}
          </ul>
        ))}
    </form>
  );
}

type TruckQuery = { status: Status[]; plate?: string; arrived_from?: string; arrived_to?: string };

/** A list of the terminal's appointments with their way through the gate (arrived, entered, left), redrawn on each change. */
function Trucks(props: { credential: Credential; version: number; caption: string; empty: string; query: TruckQuery }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [items, setItems] = useState<Item[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const key = JSON.stringify(props.query);
  const load = async (more?: string) => {
    try {
      // A change redraws as many rows as are shown.
      const limit = more ? PAGE : Math.min(500, Math.max(PAGE, items?.length ?? 0));
      const params = { query: { ...props.query, limit, cursor: more } };
      const page = await dataOf(gateClient(props.credential).GET('/api/v1/appointments', { params }));
      setItems(more ? [...(items ?? []), ...page.items] : page.items);
      setCursor(page.next_cursor);
      setProblem(null);
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };
  useEffect(() => {
    void load();
  }, [props.version, key]);
  return (
    <section class="trucks">
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ListTable
        caption={props.caption}
        headings={[
          t('gate.col.plate'),
          t('gate.col.ref'),
          t('gate.col.status'),
          t('gate.col.driver'),
          t('gate.col.arrived'),
          t('gate.col.entered'),
          t('gate.col.departed'),
        ]}
        items={items}
        itemKey={(item) => item.appointment.ref}
        empty={props.empty}
        row={({ appointment, driver }) => (
          <tr data-ref={appointment.ref}>
            <td class="plate">{appointment.license_plate ?? '—'}</td>
            <td>{appointment.ref}</td>
            <td>
              <StatusWord status={appointment.status} />
            </td>
            <td>{formatTaxId(driver.tax_id)}</td>
            <td>{clock(i18n, appointment.arrived_at)}</td>
            <td>{clock(i18n, appointment.entered_at)}</td>
            <td>{clock(i18n, appointment.departed_at)}</td>
          </tr>
        )}
      />
      {cursor && (
        <button type="button" onClick={() => void load(cursor)}>
          {t('gate.loadMore')}
        </button>
      )}
    </section>
  );
}

/** A truck found by its plate in any spelling (the service's plate key: separators, case, old and Mercosul as one). */
function PlateSearch({ credential, version }: { credential: Credential; version: number }) {
  const { t } = useI18n();
  const id = useId();
  const [typed, setTyped] = useState('');
  const [plate, setPlate] = useState<string | null>(null);
  return (
    <section class="plate-search" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('gate.search.title')}</h2>
      <form
        class="row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPlate(typed.trim() || null);
        }}
      >
        <label for={id}>{t('gate.search.plate')}</label>
        <input id={id} value={typed} autoComplete="off" autoCapitalize="characters" onInput={(e) => setTyped(e.currentTarget.value)} />
        <button type="submit" class="primary">
          {t('gate.search.submit')}
        </button>
      </form>
      {plate && (
        <Trucks
          credential={credential}
          version={version}
          caption={t('gate.search.results', { plate })}
          empty={t('gate.search.none')}
          query={{ status: KEPT, plate }}
        />
      )}
    </section>
  );
}
