import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Credential, issuesOf, queryString } from '../shared/api.js';
import type { Schemas } from '../shared/schemas.js';
import { formatTime } from '../shared/format.js';
import { ConfirmDelete } from './confirm-delete.js';
import { ListTable } from './list-table.js';

type WebhookView = Schemas['WebhookView'];
type Attempt = Schemas['DeliveryAttemptView'];
type Field = 'url' | 'events' | 'description';
type FieldErrors = Partial<Record<Field, string[]>>;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const eventsText = (events: string[] | null) => (events ?? []).join(', ');
const eventsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

/** Why the service refused a URL, in the panel's words. */
function explainUrlNotAllowed(error: ApiError): string {
  const details = (error.details ?? {}) as { host?: string; address?: string; range?: string };
  if (details.range === 'unresolved' || !details.address)
    return `The host ${details.host ?? 'of this URL'} does not resolve to any address. Check the name, or use a URL the service can reach.`;
  const range = (details.range ?? 'non-public').replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
  return `The host ${details.host ?? ''} resolves to ${details.address}, a ${range} address. Webhooks may only reach public addresses on the internet.`;
}

/** Whether a webhook is sending, and why not, in the panel's words. */
function WebhookState({ hook }: { hook: WebhookView }) {
  if (hook.enabled)
    return (
      <>
        <span class="status status-active">Active</span>
        {hook.failing_since && <span class="muted"> (every delivery has failed since {formatTime(hook.failing_since)})</span>}
      </>
    );
  if (hook.disabled_reason === 'deliveries_failed')
    return (
      <>
        <span class="status status-paused-by-service">Paused by the service</span>
        <span class="muted">
          {' '}
          Every delivery failed since {formatTime(hook.failing_since)}, for too long. Fix the receiver, then resume it: the events it missed
          follow.
        </span>
      </>
    );
  return <span class="status status-paused">Paused</span>;
}

/** The field an API problem belongs to (`events[1]` belongs to events), or null for the form as a whole. */
function fieldOf(path: string): Field | null {
  const name = /^[a-z_]+/.exec(path)?.[0];
  return name === 'url' || name === 'events' || name === 'description' ? name : null;
}

/** The account's webhooks: subscribe, change, pause and resume, delete, rotate the secret, send a test, read the delivery log, replay. */
export function Webhooks({ credential }: { credential: Credential }) {
  const [hooks, setHooks] = useState<WebhookView[] | null>(null);
  const [editing, setEditing] = useState<WebhookView | 'new' | null>(null);
  const [secret, setSecret] = useState<{ title: string; secret: string } | null>(null);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [logVersion, setLogVersion] = useState(0);

  const load = () =>
    api<WebhookView[]>(credential, 'GET', '/api/v1/webhooks').then(setHooks, (e) => setNotice({ ok: false, text: message(e) }));
  useEffect(() => void load(), []);

  const act = async (work: () => Promise<void>) => {
    setNotice(null);
    try {
      await work();
    } catch (error) {
      setNotice({ ok: false, text: message(error) });
    }
  };
  const rotate = (hook: WebhookView) =>
    act(async () => {
      const rotated = await api<WebhookView & { secret: string }>(credential, 'POST', `/api/v1/webhooks/${hook.id}/rotate-secret`);
      setSecret({ title: `New secret for ${hook.url}`, secret: rotated.secret });
      setNotice({
        ok: true,
        text: `Secret rotated. Deliveries are signed with the previous secret too until ${formatTime(rotated.previous_secret_expires_at)}.`,
      });
      void load();
    });
  const test = (hook: WebhookView) =>
    act(async () => {
      await api(credential, 'POST', `/api/v1/webhooks/${hook.id}/test`);
      setNotice({ ok: true, text: `Test event sent to ${hook.url}: its delivery shows in the log.` });
      setOpen(hook.id);
      setLogVersion((n) => n + 1);
    });
  const toggle = (hook: WebhookView) =>
    act(async () => {
      await api(credential, 'PATCH', `/api/v1/webhooks/${hook.id}`, { enabled: !hook.enabled });
      setNotice({
        ok: true,
        text: hook.enabled
          ? `Webhook to ${hook.url} paused: nothing is sent to it until you resume it.`
          : `Webhook to ${hook.url} resumed: the events of the pause follow.`,
      });
      void load();
    });
  const remove = (hook: WebhookView) =>
    act(async () => {
      setConfirming(null);
      if (open === hook.id) setOpen(null);
      await api(credential, 'DELETE', `/api/v1/webhooks/${hook.id}`);
      setNotice({ ok: true, text: `Webhook to ${hook.url} deleted, with its delivery log.` });
      void load();
    });

  return (
    <div class="webhooks stack">
      <p class="muted">
        A webhook sends each event of this account to your URL as it happens, signed with its secret (Standard Webhooks), and retries until
        your server answers 2xx.
      </p>
      {secret && (
        <section class="notice" aria-labelledby="webhook-secret-title">
          <h2 id="webhook-secret-title">{secret.title}</h2>
          <p>
            <strong>Shown only now:</strong> copy this signing secret and store it with your receiver. The service will not show it again;
            if it is lost, rotate the secret.
          </p>
          <code class="secret">{secret.secret}</code>
          <button type="button" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </section>
      )}
      {notice && (
        <p class={notice.ok ? 'success' : 'error'} role={notice.ok ? 'status' : 'alert'}>
          {notice.text}
        </p>
      )}
      {editing ? (
        <WebhookForm
          key={editing === 'new' ? 'new' : editing.id}
          credential={credential}
          hook={editing === 'new' ? null : editing}
          onDone={(created, text) => {
            setEditing(null);
            if (created) setSecret({ title: `Secret of the new webhook to ${created.url}`, secret: created.secret });
            setNotice({ ok: true, text });
            void load();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <div class="row">
          <button type="button" class="primary" onClick={() => setEditing('new')}>
            New webhook
          </button>
        </div>
      )}
      <ListTable
        caption="Webhooks"
        headings={['URL', 'State', 'Events', 'Description', 'Created']}
        actions="Actions"
        items={hooks}
        itemKey={(hook) => hook.id}
        empty="No webhooks yet."
        row={(hook) => (
          <tr>
            <td>
              <code>{hook.url}</code>
            </td>
            <td>
              <WebhookState hook={hook} />
            </td>
            <td>{hook.events ? hook.events.join(', ') : 'every event'}</td>
            <td>{hook.description ?? '—'}</td>
            <td>{formatTime(hook.created_at)}</td>
            <td class="row">
              <button type="button" aria-label={`Edit the webhook to ${hook.url}`} onClick={() => setEditing(hook)}>
                Edit
              </button>
              <button
                type="button"
                aria-expanded={open === hook.id}
                aria-label={`Delivery log of ${hook.url}`}
                onClick={() => setOpen(open === hook.id ? null : hook.id)}
              >
                Delivery log
              </button>
              <button type="button" aria-label={`Send test event to ${hook.url}`} onClick={() => void test(hook)}>
                Send test event
              </button>
              <button type="button" aria-label={`Rotate secret of ${hook.url}`} onClick={() => void rotate(hook)}>
                Rotate secret
              </button>
              <button
                type="button"
                aria-label={`${hook.enabled ? 'Pause' : 'Resume'} the webhook to ${hook.url}`}
                onClick={() => void toggle(hook)}
              >
                {hook.enabled ? 'Pause' : 'Resume'}
              </button>
              <ConfirmDelete
                asking={confirming === hook.id}
                label={`Delete the webhook to ${hook.url}`}
                confirm="Yes, delete it"
                onAsk={() => setConfirming(hook.id)}
                onConfirm={() => void remove(hook)}
                onKeep={() => setConfirming(null)}
              />
            </td>
          </tr>
        )}
        detail={(hook) => open === hook.id && <Deliveries credential={credential} hook={hook} version={logVersion} />}
      />
    </div>
  );
}

function WebhookForm(props: {
  credential: Credential;
  hook: WebhookView | null;
  onDone: (created: (WebhookView & { secret: string }) | null, text: string) => void;
  onCancel: () => void;
}) {
  const { hook } = props;
  const [url, setUrl] = useState(hook?.url ?? '');
  const [events, setEvents] = useState(eventsText(hook?.events ?? null));
  const [description, setDescription] = useState(hook?.description ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setProblem(null);
    const list = eventsOf(events);
    try {
      if (hook) {
        await api(props.credential, 'PATCH', `/api/v1/webhooks/${hook.id}`, {
          url: url.trim(),
          events: list.length ? list : null,
          description: description.trim() || null,
        });
        props.onDone(null, `Webhook to ${url.trim()} saved.`);
      } else {
        const created = await api<WebhookView & { secret: string }>(props.credential, 'POST', '/api/v1/webhooks', {
          url: url.trim(),
          ...(list.length ? { events: list } : {}),
          ...(description.trim() ? { description: description.trim() } : {}),
        });
        props.onDone(created, `Webhook to ${created.url} created.`);
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        const found: FieldErrors = {};
        const loose: string[] = [];
        for (const issue of issuesOf(error)) {
          const field = fieldOf(issue.path);
          if (field) (found[field] ??= []).push(issue.message);
          else loose.push(`${issue.path || 'Webhook'}: ${issue.message}`);
        }
        setErrors(found);
        if (loose.length || Object.keys(found).length === 0) setProblem(loose.join('; ') || error.message);
      } else if (error instanceof ApiError && error.code === 'WEBHOOK_URL_NOT_ALLOWED') {
        setErrors({ url: [explainUrlNotAllowed(error)] });
      } else {
        setProblem(message(error));
      }
    } finally {
      setBusy(false);
    }
  };

  const title = hook ? 'Edit webhook' : 'New webhook';
  return (
    <form class="stack webhook-form" aria-label={title} onSubmit={submit} noValidate>
      <h2>{title}</h2>
      <TextField
        id="webhook-url"
        label="URL"
        value={url}
        errors={errors.url}
        onInput={setUrl}
        hint="http:// or https://, a public address."
      />
      <TextField
        id="webhook-events"
        label="Events"
        value={events}
        errors={errors.events}
        onInput={setEvents}
        hint="Event types or families, separated by commas: e.g. appointment.*, ticket.created. Empty: every event."
      />
      <TextField id="webhook-description" label="Description" value={description} errors={errors.description} onInput={setDescription} />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {hook ? 'Save webhook' : 'Create webhook'}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function TextField(props: {
  id: string;
  label: string;
  value: string;
  errors?: string[];
  hint?: string;
  onInput: (value: string) => void;
}) {
  const invalid = (props.errors?.length ?? 0) > 0;
  const described = [props.hint ? `${props.id}-hint` : null, invalid ? `${props.id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="stack">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        value={props.value}
        spellcheck={false}
        aria-invalid={invalid || undefined}
        aria-describedby={described}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.hint && (
        <span id={`${props.id}-hint`} class="muted">
          {props.hint}
        </span>
      )}
      {invalid && (
        <ul id={`${props.id}-error`} class="error field-error" role="alert">
          {props.errors!.map((text, i) => (
            <li key={i}>{text}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

const POLL_MS = 1500;

/** The delivery log of one webhook, newest first, a page at a time; the first page refreshes while it is the only one shown. */
function Deliveries(props: { credential: Credential; hook: WebhookView; version: number }) {
  const { credential, hook } = props;
  const [items, setItems] = useState<Attempt[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [paged, setPaged] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [afterSeq, setAfterSeq] = useState('0');
  const [replayed, setReplayed] = useState<{ ok: boolean; text: string } | null>(null);
  const pagedRef = useRef(false);

  const page = (after?: string) =>
    api<{ items: Attempt[]; next_cursor: string | null }>(
      credential,
      'GET',
      `/api/v1/webhooks/${hook.id}/deliveries${queryString({ cursor: after })}`,
    );
  const first = async () => {
    try {
      const found = await page();
      if (pagedRef.current) return;
      setItems(found.items);
      setCursor(found.next_cursor);
      setProblem(null);
    } catch (error) {
      setProblem(message(error));
    }
  };
  const more = async () => {
    if (!cursor) return;
    try {
      const found = await page(cursor);
      pagedRef.current = true;
      setPaged(true);
      setItems((current) => [...(current ?? []), ...found.items]);
      setCursor(found.next_cursor);
    } catch (error) {
      setProblem(message(error));
    }
  };
  const newest = () => {
    pagedRef.current = false;
    setPaged(false);
    void first();
  };
  useEffect(() => {
    pagedRef.current = false;
    setPaged(false);
    void first();
    const timer = setInterval(() => void first(), POLL_MS);
    return () => clearInterval(timer);
  }, [hook.id, props.version]);

  const replay = async (event: Event) => {
    event.preventDefault();
    setReplayed(null);
    const seq = Number(afterSeq);
    if (!/^\d+$/.test(afterSeq.trim()) || !Number.isSafeInteger(seq))
      return setReplayed({ ok: false, text: 'Give a seq: a whole number of 0 or more (0 sends every kept event).' });
    try {
      const done = await api<{ queued: number; last_seq: number | null; more: boolean }>(
        credential,
        'POST',
        `/api/v1/webhooks/${hook.id}/replay`,
        {
          after_seq: seq,
        },
      );
      setReplayed({
        ok: true,
        text:
          done.queued === 0
            ? `No kept event after seq ${seq} is of the types this webhook takes.`
            : `${done.queued} event${done.queued === 1 ? '' : 's'} queued again, up to seq ${done.last_seq}.${
                done.more ? ` More follow: replay again after seq ${done.last_seq}.` : ''
              }`,
      });
      if (done.more && done.last_seq !== null) setAfterSeq(String(done.last_seq));
      newest();
    } catch (error) {
      setReplayed({ ok: false, text: message(error) });
    }
  };

  return (
    <div class="stack deliveries">
      <ListTable
        caption={<>Deliveries to {hook.url}</>}
        headings={['Event', 'Seq', 'Attempt', 'Status', 'Response', 'Duration', 'Next attempt', 'When']}
        items={items}
        itemKey={(item) => item.id}
        empty="No deliveries yet."
        row={(item) => (
          <tr class="delivery">
            <td>{item.type}</td>
            <td>{item.seq ?? '—'}</td>
            <td>{item.attempt}</td>
            <td>
              <span class={`status status-${item.status}`}>{item.status}</span>
              {item.error && <span class="muted"> ({item.error})</span>}
            </td>
            <td>{item.response_status ?? '—'}</td>
            <td>{item.duration_ms} ms</td>
            <td>{formatTime(item.next_attempt_at)}</td>
            <td>{formatTime(item.created_at)}</td>
          </tr>
        )}
      />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="row">
        {cursor && (
          <button type="button" onClick={() => void more()}>
            Older deliveries
          </button>
        )}
        {paged && (
          <button type="button" onClick={newest}>
            Back to the newest
          </button>
        )}
      </div>
      <form class="row" onSubmit={replay} aria-label={`Replay to ${hook.url}`}>
        <label for={`replay-${hook.id}`}>Replay events after seq</label>
        <input id={`replay-${hook.id}`} inputMode="numeric" value={afterSeq} onInput={(e) => setAfterSeq(e.currentTarget.value)} />
        <button type="submit">Replay</button>
        {replayed && (
          <span class={replayed.ok ? 'success' : 'error'} role={replayed.ok ? 'status' : 'alert'}>
            {replayed.text}
          </span>
        )}
      </form>
    </div>
  );
}
