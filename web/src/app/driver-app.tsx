import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { io, type Socket } from 'socket.io-client';
import type { DriverClientToServer, DriverFeedEvent, DriverServerToClient } from '../../../src/realtime/socket-types.js';
import { ApiError, newId } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainCheckin, explainError } from '../shared/explain.js';
import { LanguageSwitch, type Translator, useI18n } from '../shared/i18n.js';
import { useLatest } from '../shared/latest.js';
import { Elements, type GatePass, Modal, RecordCard, TicketView } from '../shared/layout.js';
import type { Schemas } from '../shared/schemas.js';
import { session } from '../shared/session.js';
import { type Kept, kept, type Records, type Shown } from './kept.js';
import { expiresAt, keepToken, LAST_SEQ, ownerOf, takeTokenFromLink, TOKEN } from './token.js';

type DriverAppointment = Schemas['DriverAppointmentView'];
type DriverTrip = Schemas['DriverTripView'];
type DriverTicket = Schemas['DriverTicketView'];
/** The /driver namespace, typed from the service's own socket map. */
type DriverSocket = Socket<DriverServerToClient, DriverClientToServer>;

type Connection = 'connecting' | 'live' | 'offline';
type CheckinState = { pending: true } | { pending: false; ok: boolean; message: string };

/** `linked`: the token of a sign-in link opened while another driver was signed in, not signed in until confirmed. */
export function DriverApp({ linked = null }: { linked?: string | null }) {
  const [token, setToken] = useState(session.get(TOKEN));
  const [ended, setEnded] = useState(false);
  const [last, setLast] = useState<Kept | null>(() => kept.get());
  const [pending, setPending] = useState<string | null>(linked);

  const signIn = (value: string) => {
    keepToken(value);
    setEnded(false);
    setToken(value);
  };
  // Signing out forgets everything, the kept ticket too.
  const signOut = () => {
    session.remove(TOKEN, LAST_SEQ);
    kept.forget();
    setLast(null);
    setEnded(false);
    setToken(null);
  };
  // A link followed while the page is open changes only the fragment: it is taken as at load.
  useEffect(() => {
    const followed = () => {
      const asked = takeTokenFromLink();
      if (asked) return setPending(asked);
      const now = session.get(TOKEN);
      if (now) signIn(now);
    };
    window.addEventListener('hashchange', followed);
    return () => window.removeEventListener('hashchange', followed);
  }, []);
  // Switching drivers signs the current one out first (their kept records go), then the link's driver in.
  const switchDriver = () => {
    const next = pending;
    setPending(null);
    if (!next) return;
    signOut();
    signIn(next);
  };
  // An ended token leaves the last records on screen, with a notice, until the driver signs out.
  const expire = useCallback(() => {
    session.remove(TOKEN, LAST_SEQ);
    setLast(kept.get());
    setToken(null);
    setEnded(true);
  }, []);

  return (
    <>
      {token ? (
        <Driver key={token} token={token} onSignOut={signOut} onExpired={expire} />
      ) : (
        <SignedOut ended={ended} last={last} onSignIn={signIn} onSignOut={signOut} />
      )}
      {pending && <SwitchDriver onSwitch={switchDriver} onKeep={() => setPending(null)} />}
    </>
  );
}

/** Asks before a sign-in link replaces the driver signed in (naming neither token); closing it keeps the current one. */
function SwitchDriver({ onSwitch, onKeep }: { onSwitch: () => void; onKeep: () => void }) {
  const { t } = useI18n();
  return (
    <Modal title={t('app.switch.title')} onClose={onKeep}>
      <div class="stack">
        <p>{t('app.switch.text')}</p>
        <button type="button" class="primary" onClick={onSwitch}>
          {t('app.switch.yes')}
        </button>
        <button type="button" class="quiet" onClick={onKeep}>
          {t('app.switch.no')}
        </button>
      </div>
    </Modal>
  );
}

function AppBar({ children }: { children?: ComponentChildren }) {
  const { t } = useI18n();
  return (
    <header class="app-bar">
      <h1 class="app-title">{t('app.title')}</h1>
      {children}
      <LanguageSwitch />
    </header>
  );
}

/** The sign-in form and, when the browser kept them, the last records shown (the ticket above all). */
function SignedOut(props: { ended: boolean; last: Kept | null; onSignIn: (token: string) => void; onSignOut: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { last } = props;
  return (
    <div class="app-shell">
      <AppBar />
      <main>
        {props.ended && (
          <section class="notice notice-warn" role="alert" aria-labelledby="ended-title">
            <h2 id="ended-title">{t('app.ended.title')}</h2>
            <p>{t('app.ended.text')}</p>
          </section>
        )}
        {last && (
          <section class="kept" aria-labelledby="kept-title">
            <h2 id="kept-title" class="visually-hidden">
              {t('app.kept.title')}
            </h2>
            <p class="notice" role="note">
              {t('app.kept.notice', { time: i18n.time(last.saved_at) })}
            </p>
            <RecordsView records={last.records} />
            <button type="button" class="quiet" onClick={props.onSignOut}>
              {t('app.kept.forget')}
            </button>
          </section>
        )}
        <SignIn onSignIn={props.onSignIn} />
      </main>
    </div>
  );
}

/** A sign-in code (8 characters; O, 0, I, 1 and the like are read as one) in the form the service keeps them. */
const normalizedCode = (text: string) => text.toUpperCase().replace(/[\s-]+/g, '');

function SignIn({ onSignIn }: { onSignIn: (token: string) => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [code, setCode] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const token = value.trim();
    const typed = normalizedCode(code);
    if (!token && !typed) return setProblem(t('app.signIn.empty'));
    setBusy(true);
    setProblem(null);
    try {
      if (token) {
        await dataOf(gateClient({ driverToken: token }).GET('/api/v1/driver/appointments'));
        onSignIn(token);
      } else {
        const exchanged = await dataOf(gateClient(null).POST('/api/v1/driver/sessions', { body: { code: typed } }));
        onSignIn(exchanged.token!); // never a replay (no Idempotency-Key): the token is there
      }
    } catch (error) {
      setProblem(signInProblem(i18n, error, token ? 'token' : 'code'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack sign-in" onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">{t('app.signIn.title')}</h2>
      <label for="sign-in-code">{t('app.signIn.code')}</label>
      <input
        id="sign-in-code"
        class="code-input"
        autocomplete="one-time-code"
        autocapitalize="characters"
        spellcheck={false}
        maxLength={12}
        value={code}
        onInput={(e) => setCode(e.currentTarget.value)}
        aria-describedby="sign-in-code-hint"
      />
      <span id="sign-in-code-hint" class="muted">
        {t('app.signIn.codeHint')}
      </span>
      <label for="driver-token">{t('app.signIn.token')}</label>
      <textarea
        id="driver-token"
        rows={3}
        autocomplete="off"
        spellcheck={false}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
        aria-describedby={problem ? 'sign-in-problem' : undefined}
      />
      {problem && (
        <p id="sign-in-problem" class="error" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t('app.signIn.busy') : t('app.signIn.submit')}
      </button>
      <p class="muted">{t('app.signIn.link')}</p>
    </form>
  );
}

function signInProblem(i18n: Translator, error: unknown, way: 'token' | 'code'): string {
  const { t } = i18n;
  if (!(error instanceof ApiError)) return explainError(i18n, error);
  if (error.code === 'RATE_LIMITED') return t('app.signIn.tooMany', { seconds: error.retryAfter ?? 60 });
  if (way === 'token' && error.code === 'UNAUTHORIZED') return t('app.signIn.badToken');
  if (way === 'code' && error.status >= 400 && error.status < 500) return t('app.signIn.badCode');
  return explainError(i18n, error);
}

function Driver({ token, onSignOut, onExpired }: { token: string; onSignOut: () => void; onExpired: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const client = gateClient({ driverToken: token });
  const owner = ownerOf(token);
  // What this driver saw last, shown at once (and while offline) until the service answers.
  const [start] = useState(() => {
    const last = kept.get();
    return last?.owner === owner ? last : null;
  });
  const [records, setRecords] = useState<Records | null>(start?.records ?? null);
  const [savedAt, setSavedAt] = useState<string | null>(start?.saved_at ?? null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [updates, setUpdates] = useState<{ seq: number; text: string }[]>([]);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [checkins, setCheckins] = useState<Record<string, CheckinState>>({});
  const [open, setOpen] = useState<Shown<DriverAppointment> | Shown<DriverTrip> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const lastSeq = useRef(Number(session.get(LAST_SEQ) ?? 0));
  // A fresh sign-in replays the feed to learn where it stands, without announcing what is old news.
  const announce = useRef(session.get(LAST_SEQ) !== null);
  const socketRef = useRef<DriverSocket | null>(null);
  const i18nRef = useRef(i18n);
  i18nRef.current = i18n;

  // Whatever is shown is kept, so it survives a reload, going offline and the token's end.
  useEffect(() => {
    if (records && savedAt) kept.set({ owner, saved_at: savedAt, records });
  }, [records, savedAt]);

  const failed = useCallback(
    (error: unknown) => {
      if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return onExpired();
      if (error instanceof ApiError && error.code === 'OFFLINE') return setConnection('offline');
      setProblem(explainError(i18nRef.current, error));
    },
    [onExpired],
  );

  const loads = useLatest();
  const reload = useCallback(async () => {
    // Layout texts written in several languages come in the driver's chosen one.
    const params = { header: { 'Accept-Language': i18nRef.current.language } };
    // Loads overlap (a push, the socket's connect, the language switch): one answered late must not draw over what a
    // later one drew, such as the layouts in the language the driver switched from.
    const current = loads.begin();
    try {
      const [appointments, trips, tickets] = await Promise.all([
        dataOf(client.GET('/api/v1/driver/appointments', { params })),
        dataOf(client.GET('/api/v1/driver/trips', { params })),
        dataOf(client.GET('/api/v1/driver/tickets', { params })),
      ]);
      if (!current()) return;
      setRecords({ appointments, trips, tickets });
      setSavedAt(new Date().toISOString());
      setProblem(null);
    } catch (error) {
      if (current()) failed(error);
    }
  }, [token]);

  /** Applies feed events in seq order; a gap means a push was missed, so the rest comes from `sync`. */
  const applyEvents = useCallback(
    (events: DriverFeedEvent[]): boolean => {
      for (const event of events) {
        if (event.seq <= lastSeq.current) continue;
        if (event.seq !== lastSeq.current + 1) return false;
        lastSeq.current = event.seq;
        session.set(LAST_SEQ, String(event.seq));
        if (!announce.current) continue;
        setUpdates((list) => [{ seq: event.seq, text: describe(i18nRef.current, event) }, ...list].slice(0, 5));
        if (event.type.startsWith('ticket.') && typeof event.data.id === 'string') {
          const id = event.data.id;
          setFresh((set) => new Set(set).add(id));
        }
        if (event.type.endsWith('.status')) {
          const { id, status } = event.data as { id: string; status: string };
          setRecords((current) => current && patchStatus(current, id, status));
        }
      }
      return true;
    },
    [token],
  );

  /** Replays what was missed; true once the app is up to date (only then is it live). */
  const catchUp = useCallback(async (socket: DriverSocket): Promise<boolean> => {
    for (;;) {
      const answer = await socket.emitWithAck('sync', { after_seq: lastSeq.current });
      if (!answer.success) {
        if (answer.error.code === 'UNAUTHORIZED') onExpired();
        return false;
      }
      applyEvents(answer.data.events);
      if (!answer.data.has_more || answer.data.events.length === 0) break;
    }
    announce.current = true;
    session.set(LAST_SEQ, String(lastSeq.current));
    return true;
  }, []);

  useEffect(() => {
    // ackTimeout rather than socket.timeout(): the answer keeps its type (socket.io issue 4925).
    const socket: DriverSocket = io('/driver', {
      auth: { token },
      reconnectionDelayMax: 5000,
      autoConnect: navigator.onLine,
      ackTimeout: 10_000,
    });
    socketRef.current = socket;
    socket.on('connect', () => {
      // Live once what was missed while away has been replayed (a sign-in's first replay is silent; one cut
      // short by going offline is retried, still silent, on the next connect). New records are not fed: list them again.
      void catchUp(socket)
        .then((upToDate) => upToDate && socket.connected && setConnection('live'))
        .catch(() => undefined)
        .then(reload);
    });
    socket.on('disconnect', (reason) => {
      setConnection(navigator.onLine ? 'connecting' : 'offline');
      // The service closes a socket itself when its token is revoked: the next call says so.
      if (reason === 'io server disconnect') void reload();
    });
    socket.on('connect_error', (error: Error & { data?: { code?: string } }) => {
      if (error.data?.code === 'UNAUTHORIZED') return onExpired();
      setConnection(navigator.onLine ? 'connecting' : 'offline');
    });
    // A layout of the driver's records or tickets was edited: draw them again as they are now.
    socket.on('layout.changed', () => void reload());
    socket.on('event', (event) => {
      // Tickets come rendered from the listing: fetch them as soon as the push says they changed.
      if (applyEvents([event])) void reload();
      else
        void catchUp(socket)
          .catch(() => undefined)
          .then(reload);
    });
    const offline = () => {
      socket.disconnect();
      setConnection('offline');
    };
    const online = () => {
      setConnection('connecting');
      socket.connect();
    };
    window.addEventListener('offline', offline);
    window.addEventListener('online', online);
    if (navigator.onLine) void reload();
    else setConnection('offline');
    return () => {
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
      socket.close();
    };
  }, [token]);

  // Another language on the switch: the layouts are drawn again in it (not on the first render: the socket's connect loads them).
  const shownLanguage = useRef(i18n.language);
  useEffect(() => {
    if (shownLanguage.current === i18n.language) return;
    shownLanguage.current = i18n.language;
    if (navigator.onLine) void reload();
  }, [i18n.language]);

  // A token ends at its expiry even while nothing is asked of the service.
  useEffect(() => {
    const left = expiresAt(token) - Date.now();
    if (!Number.isFinite(left) || left > 2 ** 31 - 1) return;
    const timer = setTimeout(onExpired, Math.max(0, left));
    return () => clearTimeout(timer);
  }, [token]);

  const checkIn = async (appointment: Shown<DriverAppointment>) => {
    setCheckins((all) => ({ ...all, [appointment.id]: { pending: true } }));
    try {
      await dataOf(
        client.POST('/api/v1/driver/appointments/{id}/check-in', {
          params: { path: { id: appointment.id } },
          body: { checkin_id: newId() },
        }),
      );
      const message = t('app.checkedIn', { time: i18n.time(new Date().toISOString()) });
      setCheckins((all) => ({ ...all, [appointment.id]: { pending: false, ok: true, message } }));
      void reload();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return onExpired();
      setCheckins((all) => ({ ...all, [appointment.id]: { pending: false, ok: false, message: explainCheckin(i18n, error) } }));
    }
  };

  const connectionWord = connection === 'live' ? t('app.live') : connection === 'offline' ? t('app.offline') : t('app.connecting');
  return (
    <div class="app-shell">
      <AppBar>
        <span class={`connection connection-${connection}`} role="status" data-connection={connection}>
          {connectionWord}
        </span>
        <button type="button" class="quiet" onClick={onSignOut}>
          {t('app.signOut')}
        </button>
      </AppBar>
      <main>
        {connection === 'offline' && (
          <p class="notice notice-warn">{savedAt ? t('app.offlineSince', { time: i18n.time(savedAt) }) : t('app.offlineNotice')}</p>
        )}
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <section aria-labelledby="updates-title" class={updates.length ? 'updates' : 'visually-hidden'}>
          <h2 id="updates-title">{t('app.updates')}</h2>
          <ul aria-live="polite">
            {updates.map((update) => (
              <li key={update.seq}>{update.text}</li>
            ))}
          </ul>
        </section>
        {records === null ? (
          <p class="muted" role="status">
            {t('common.loading')}
          </p>
        ) : (
          <RecordsView
            records={records}
            fresh={fresh}
            onOpen={setOpen}
            checkin={(appointment) =>
              appointment.status === 'SCHEDULED' ? (
                <CheckinButton state={checkins[appointment.id]} onCheckIn={() => void checkIn(appointment)} />
              ) : (
                checkins[appointment.id] && <CheckinResult state={checkins[appointment.id]} />
              )
            }
          />
        )}
      </main>
      {open && (
        <Modal title={open.ref} onClose={() => setOpen(null)}>
          {open.layout ? <Elements elements={open.layout.modal_layout} /> : <p class="muted">{t('app.noDetails')}</p>}
        </Modal>
      )}
    </div>
  );
}

/** The appointment's code for the gate: its `qrcode` element's value when its layout has one, else its ref. */
function passOf(ticket: DriverTicket, appointments: Shown<DriverAppointment>[]): GatePass {
  const appointment = appointments.find((a) => a.id === ticket.appointment_id);
  const elements = [...(appointment?.layout?.card_layout ?? []), ...(appointment?.layout?.modal_layout ?? [])];
  const qr = elements.find((e) => e.type === 'qrcode' && e.value !== null && e.value !== undefined && e.value !== '');
  const code = qr ? (typeof qr.value === 'string' ? qr.value : JSON.stringify(qr.value)) : ticket.appointment_ref;
  return { code, plate: appointment?.license_plate ?? null, ref: ticket.appointment_ref };
}

/** Tickets first (what the gate asks for), then appointments and trips. */
function RecordsView(props: {
  records: Records;
  fresh?: Set<string>;
  onOpen?: (record: Shown<DriverAppointment> | Shown<DriverTrip>) => void;
  checkin?: (appointment: Shown<DriverAppointment>) => ComponentChildren;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const { tickets, appointments, trips } = props.records;
  const onOpen = props.onOpen;
  return (
    <>
      {tickets.length > 0 && (
        <section aria-labelledby="tickets-title" class="tickets-now">
          <div class="row tickets-head">
            <h2 id="tickets-title">{t('app.tickets')}</h2>
            <button type="button" class="quiet print-button" onClick={() => window.print()}>
              {t('ticketHistory.print')}
            </button>
          </div>
          {currentTickets(tickets).map(({ current, older }) => (
            <div key={current.id} class="ticket-group">
              <div class={props.fresh?.has(current.id) ? 'fresh' : undefined}>
                <p class="ticket-valid">{t('ticketHistory.current', { time: i18n.time(current.created_at) })}</p>
                <TicketView
                  layout={current.layout}
                  label={t('app.ticketFor', { ref: current.appointment_ref })}
                  pass={passOf(current, appointments)}
                />
              </div>
              {older.length > 0 && (
                <details class="ticket-history">
                  <summary>{t('ticketHistory.summary', { count: older.length })}</summary>
                  {older.map((ticket) => (
                    <div key={ticket.id} class="ticket-replaced">
                      <p class="muted">{t('ticketHistory.replaced', { time: i18n.time(ticket.created_at) })}</p>
                      <TicketView layout={ticket.layout} label={t('ticketHistory.olderFor', { ref: ticket.appointment_ref })} />
                    </div>
                  ))}
                </details>
              )}
            </div>
          ))}
        </section>
      )}
      {appointments.length > 0 && (
        <section aria-labelledby="appointments-title">
          <h2 id="appointments-title">{t('app.appointments')}</h2>
          {appointments.map((appointment) => (
            <RecordCard
              key={appointment.id}
              layout={appointment.layout}
              title={appointment.ref}
              status={appointment.status}
              onOpen={onOpen && (() => onOpen(appointment))}
            >
              <p class="muted">
                {appointment.terminal.name} · {i18n.window(appointment.window_start, appointment.window_end)}
              </p>
              {props.checkin?.(appointment)}
            </RecordCard>
          ))}
        </section>
      )}
      {trips.length > 0 && (
        <section aria-labelledby="trips-title">
          <h2 id="trips-title">{t('app.trips')}</h2>
          {trips.map((trip) => (
            <RecordCard key={trip.id} layout={trip.layout} title={trip.ref} status={trip.status} onOpen={onOpen && (() => onOpen(trip))}>
              <p class="muted">
                {trip.carrier.name} · {i18n.window(trip.window_start, trip.window_end)}
              </p>
            </RecordCard>
          ))}
        </section>
      )}
      {tickets.length + appointments.length + trips.length === 0 && <p class="empty">{t('app.empty')}</p>}
    </>
  );
}

/**
 * One current ticket per appointment and ticket layout: the newest (a new ticket of a layout replaces the one before
 * it), the older ones kept as its history; groups newest first.
 */
function currentTickets(tickets: DriverTicket[]): { current: DriverTicket; older: DriverTicket[] }[] {
  const newestFirst = [...tickets].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  const groups = new Map<string, DriverTicket[]>();
  for (const ticket of newestFirst) {
    const key = `${ticket.appointment_id} ${ticket.layout_ref}`;
    groups.set(key, [...(groups.get(key) ?? []), ticket]);
  }
  return [...groups.values()].map(([current, ...older]) => ({ current, older }));
}

function CheckinButton({ state, onCheckIn }: { state?: CheckinState; onCheckIn: () => void }) {
  const { t } = useI18n();
  const pending = state?.pending === true;
  return (
    <div class="checkin">
      <button type="button" class="primary" disabled={pending} onClick={onCheckIn}>
        {pending ? t('app.checkingIn') : t('app.checkIn')}
      </button>
      {state && <CheckinResult state={state} />}
    </div>
  );
}

function CheckinResult({ state }: { state: CheckinState }) {
  if (state.pending) return null;
  return state.ok ? (
    <p class="success" role="status">
      {state.message}
    </p>
  ) : (
    <p class="error" role="alert">
      {state.message}
    </p>
  );
}

function patchStatus(records: Records, id: string, status: string): Records {
  const patch = <T extends { id: string; status: string }>(list: T[]): T[] =>
    list.map((record) => (record.id === id ? { ...record, status } : record));
  return { ...records, appointments: patch(records.appointments), trips: patch(records.trips) };
}

function describe(i18n: Translator, event: DriverFeedEvent): string {
  const { t } = i18n;
  const data = event.data as Record<string, string>;
  switch (event.type) {
    case 'ticket.created':
      return t('app.update.ticketCreated', { ref: data.appointment_ref });
    case 'ticket.updated':
      return t('app.update.ticketUpdated', { ref: data.appointment_ref });
    case 'ticket.deleted':
      return t('app.update.ticketDeleted', { ref: data.appointment_ref });
    case 'appointment.status':
    case 'trip.status':
      return t('app.update.status', { ref: data.ref, from: i18n.status(data.previous_status), to: i18n.status(data.status) });
    default:
      return t('app.update.other');
  }
}
