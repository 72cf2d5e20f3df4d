import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { io, type Socket } from 'socket.io-client';
import { api, ApiError, newId } from '../shared/api.js';
import { explainCheckin } from '../shared/explain.js';
import { formatTime, formatWindow } from '../shared/format.js';
import { Elements, Modal, RecordCard, TicketView } from '../shared/layout.js';
import type { Schemas } from '../shared/schemas.js';
import { session } from '../shared/session.js';
import { LAST_SEQ, TOKEN } from './token.js';

type DriverAppointment = Schemas['DriverAppointmentView'];
type DriverTrip = Schemas['DriverTripView'];
type DriverTicket = Schemas['DriverTicketView'];
type FeedEvent = Schemas['FeedEventView'];

/**
 * A listed record as the app shows it: a status event may move it to a status its listing never returns
 * (COMPLETED, say) before the list is loaded again.
 */
type Shown<T extends { status: string }> = Omit<T, 'status'> & { status: string };

interface Records {
  appointments: Shown<DriverAppointment>[];
  trips: Shown<DriverTrip>[];
  tickets: DriverTicket[];
}

type Connection = 'connecting' | 'live' | 'offline';
type CheckinState = { pending: true } | { pending: false; ok: boolean; message: string };

export function DriverApp() {
  const [token, setToken] = useState(session.get(TOKEN));
  const [ended, setEnded] = useState(false);

  const signIn = (value: string) => {
    if (value !== session.get(TOKEN)) session.remove(LAST_SEQ);
    session.set(TOKEN, value);
    setEnded(false);
    setToken(value);
  };
  const signOut = () => {
    session.remove(TOKEN, LAST_SEQ);
    setToken(null);
  };
  const expire = useCallback(() => {
    session.remove(TOKEN, LAST_SEQ);
    setToken(null);
    setEnded(true);
  }, []);

  if (!token) return <SignIn ended={ended} onSignIn={signIn} />;
  return <Driver key={token} token={token} onSignOut={signOut} onExpired={expire} />;
}

function SignIn({ ended, onSignIn }: { ended: boolean; onSignIn: (token: string) => void }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const token = value.trim();
    if (!token) return setProblem('Paste the driver token your terminal or carrier gave you.');
    setBusy(true);
    setProblem(null);
    try {
      await api({ driverToken: token }, 'GET', '/api/v1/driver/appointments');
      onSignIn(token);
    } catch (error) {
      setProblem(
        error instanceof ApiError && error.code === 'UNAUTHORIZED'
          ? 'This token is not valid: it may have expired or been revoked. Ask for a new one.'
          : error instanceof ApiError
            ? error.message
            : String(error),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="app-shell">
      <h1 class="app-title">Gate</h1>
      {ended && (
        <section class="notice notice-warn" role="alert" aria-labelledby="ended-title">
          <h2 id="ended-title">Your sign-in has ended</h2>
          <p>Your driver token has expired or was revoked. Ask your terminal or carrier for a new link or token, then sign in again.</p>
        </section>
      )}
      <form class="stack" onSubmit={submit}>
        <label for="driver-token">Driver token</label>
        <textarea
          id="driver-token"
          rows={4}
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
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted">Your terminal or carrier can also send you a link that signs you in at once.</p>
    </main>
  );
}

function Driver({ token, onSignOut, onExpired }: { token: string; onSignOut: () => void; onExpired: () => void }) {
  const credential = { driverToken: token };
  const [records, setRecords] = useState<Records | null>(null);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [updates, setUpdates] = useState<{ seq: number; text: string }[]>([]);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [checkins, setCheckins] = useState<Record<string, CheckinState>>({});
  const [open, setOpen] = useState<Shown<DriverAppointment> | Shown<DriverTrip> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const lastSeq = useRef(Number(session.get(LAST_SEQ) ?? 0));
  // A fresh sign-in replays the feed to learn where it stands, without announcing what is old news.
  const announce = useRef(session.get(LAST_SEQ) !== null);
  const socketRef = useRef<Socket | null>(null);

  const failed = useCallback(
    (error: unknown) => {
      if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return onExpired();
      if (error instanceof ApiError && error.code === 'OFFLINE') return setConnection('offline');
      setProblem(error instanceof Error ? error.message : String(error));
    },
    [onExpired],
  );

  const reload = useCallback(async () => {
    try {
      const [appointments, trips, tickets] = await Promise.all([
        api<DriverAppointment[]>(credential, 'GET', '/api/v1/driver/appointments'),
        api<DriverTrip[]>(credential, 'GET', '/api/v1/driver/trips'),
        api<DriverTicket[]>(credential, 'GET', '/api/v1/driver/tickets'),
      ]);
      setRecords({ appointments, trips, tickets });
      setProblem(null);
    } catch (error) {
      failed(error);
    }
  }, [token]);

  /** Applies feed events in seq order; a gap means a push was missed, so the rest comes from `sync`. */
  const applyEvents = useCallback(
    (events: FeedEvent[]): boolean => {
      for (const event of events) {
        if (event.seq <= lastSeq.current) continue;
        if (event.seq !== lastSeq.current + 1) return false;
        lastSeq.current = event.seq;
        session.set(LAST_SEQ, String(event.seq));
        if (!announce.current) continue;
        const text = describe(event);
        setUpdates((list) => [{ seq: event.seq, text }, ...list].slice(0, 5));
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
  const catchUp = useCallback(async (socket: Socket): Promise<boolean> => {
    for (;;) {
      const answer = (await socket.timeout(10_000).emitWithAck('sync', { after_seq: lastSeq.current })) as
        { success: true; data: Schemas['FeedPageView'] } | { success: false; error: { code: string; message: string } };
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
    const socket = io('/driver', { auth: { token }, reconnectionDelayMax: 5000 });
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
    socket.on('event', (event: FeedEvent) => {
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
    void reload();
    return () => {
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
      socket.close();
    };
  }, [token]);

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
      await api(credential, 'POST', `/api/v1/driver/appointments/${appointment.id}/check-in`, { checkin_id: newId() });
      setCheckins((all) => ({
        ...all,
        [appointment.id]: {
          pending: false,
          ok: true,
          message: `Checked in at ${formatTime(new Date().toISOString())}. Your ticket is above.`,
        },
      }));
      void reload();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return onExpired();
      setCheckins((all) => ({ ...all, [appointment.id]: { pending: false, ok: false, message: explainCheckin(error) } }));
    }
  };

  const tickets = records?.tickets ?? [];
  const appointments = records?.appointments ?? [];
  const trips = records?.trips ?? [];

  return (
    <div class="app-shell">
      <header class="app-bar">
        <h1 class="app-title">Gate</h1>
        <span class={`connection connection-${connection}`} role="status" data-connection={connection}>
          {connection === 'live' ? 'Live' : connection === 'offline' ? 'Offline' : 'Connecting…'}
        </span>
        <button type="button" class="quiet" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>
        {connection === 'offline' && (
          <p class="notice notice-warn">You are offline. What you see may be out of date; it catches up when you are back.</p>
        )}
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <section aria-labelledby="updates-title" class={updates.length ? 'updates' : 'visually-hidden'}>
          <h2 id="updates-title">Updates</h2>
          <ul aria-live="polite">
            {updates.map((update) => (
              <li key={update.seq}>{update.text}</li>
            ))}
          </ul>
        </section>
        {records === null ? (
          <p class="muted" role="status">
            Loading…
          </p>
        ) : (
          <>
            {tickets.length > 0 && (
              <section aria-labelledby="tickets-title">
                <h2 id="tickets-title">Tickets</h2>
                {tickets.map((ticket) => (
                  <div key={ticket.id} class={fresh.has(ticket.id) ? 'fresh' : undefined}>
                    <TicketView layout={ticket.layout} label={`Ticket for ${ticket.appointment_ref}`} />
                  </div>
                ))}
              </section>
            )}
            {appointments.length > 0 && (
              <section aria-labelledby="appointments-title">
                <h2 id="appointments-title">Appointments</h2>
                {appointments.map((appointment) => (
                  <RecordCard
                    key={appointment.id}
                    layout={appointment.layout}
                    title={appointment.ref}
                    status={appointment.status}
                    onOpen={() => setOpen(appointment)}
                  >
                    <p class="muted">
                      {appointment.terminal.name} · {formatWindow(appointment.window_start, appointment.window_end)}
                    </p>
                    {appointment.status === 'SCHEDULED' && (
                      <CheckinButton state={checkins[appointment.id]} onCheckIn={() => void checkIn(appointment)} />
                    )}
                    {appointment.status !== 'SCHEDULED' && checkins[appointment.id] && <CheckinResult state={checkins[appointment.id]} />}
                  </RecordCard>
                ))}
              </section>
            )}
            {trips.length > 0 && (
              <section aria-labelledby="trips-title">
                <h2 id="trips-title">Trips</h2>
                {trips.map((trip) => (
                  <RecordCard key={trip.id} layout={trip.layout} title={trip.ref} status={trip.status} onOpen={() => setOpen(trip)}>
                    <p class="muted">
                      {trip.carrier.name} · {formatWindow(trip.window_start, trip.window_end)}
                    </p>
                  </RecordCard>
                ))}
              </section>
            )}
            {tickets.length + appointments.length + trips.length === 0 && (
              <p class="empty">Nothing scheduled for you right now. New appointments and trips appear here.</p>
            )}
          </>
        )}
      </main>
      {open && (
        <Modal title={open.ref} onClose={() => setOpen(null)}>
          {open.layout ? <Elements elements={open.layout.modal_layout} /> : <p class="muted">No details.</p>}
        </Modal>
      )}
    </div>
  );
}

function CheckinButton({ state, onCheckIn }: { state?: CheckinState; onCheckIn: () => void }) {
  const pending = state?.pending === true;
  return (
    <div class="checkin">
      <button type="button" class="primary" disabled={pending} onClick={onCheckIn}>
        {pending ? 'Checking in…' : 'Check in'}
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

/** The `exp` claim of a driver token (a JWT: its claims are readable, only its signature is secret); NaN if unreadable. */
function expiresAt(token: string): number {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(payload)) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : NaN;
  } catch {
    return NaN;
  }
}

function patchStatus(records: Records, id: string, status: string): Records {
  const patch = <T extends { id: string; status: string }>(list: T[]): T[] =>
    list.map((record) => (record.id === id ? { ...record, status } : record));
  return { ...records, appointments: patch(records.appointments), trips: patch(records.trips) };
}

function describe(event: FeedEvent): string {
  const data = event.data as Record<string, string>;
  switch (event.type) {
    case 'ticket.created':
      return `New ticket for ${data.appointment_ref}`;
    case 'ticket.updated':
      return `Ticket updated for ${data.appointment_ref}`;
    case 'ticket.deleted':
      return `A ticket for ${data.appointment_ref} was withdrawn`;
    case 'appointment.status':
    case 'trip.status':
      return `${data.ref}: ${data.previous_status} → ${data.status}`;
    default:
      return event.type;
  }
}
