import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Credential, issuesOf } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { type Translator, useI18n } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';
import { ConfirmDelete } from './confirm-delete.js';
import { ListTable } from './list-table.js';

type WebhookView = Schemas['WebhookView'];
type Attempt = Schemas['DeliveryAttemptView'];
type WithSecret = Schemas['WebhookWithSecretView'];
/** Event types as typed in the form: the service names any it does not know (details.errors, path `events[i]`). */
type EventTypes = NonNullable<Schemas['UpdateWebhookDto']['events']>;
type Field = 'url' | 'events' | 'description';
type FieldErrors = Partial<Record<Field, string[]>>;

const eventsText = (events: string[] | null) => (events ?? []).join(', ');
const eventsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean) as EventTypes;

/** Why the service refused a URL, in the panel's words. */
function explainUrlNotAllowed({ t }: Translator, error: ApiError): string {
  const details = (error.details ?? {}) as { host?: string; reason?: string };
  if (details.reason === 'unresolved') return t('webhooks.url.unresolved', { host: details.host ?? '' });
  return t('webhooks.url.private', { host: details.host ?? '' });
}

/** Whether a webhook is sending, and why not, in the panel's words. */
function WebhookState({ hook }: { hook: WebhookView }) {
  const i18n = useI18n();
  const { t } = i18n;
  const since = hook.failing_since ? i18n.time(hook.failing_since) : '';
  if (hook.enabled)
    return (
      <>
        <span class="status status-active">{t('webhooks.state.active')}</span>
        {hook.failing_since && <span class="muted"> {t('webhooks.state.failingSince', { time: since })}</span>}
      </>
    );
  if (hook.disabled_reason === 'deliveries_failed')
    return (
      <>
        <span class="status status-paused-by-service">{t('webhooks.state.pausedByService')}</span>
        <span class="muted"> {t('webhooks.state.pausedByServiceWhy', { time: since })}</span>
      </>
    );
  return <span class="status status-paused">{t('webhooks.state.paused')}</span>;
}

/** The field an API problem belongs to (`events[1]` belongs to events), or null for the form as a whole. */
function fieldOf(path: string): Field | null {
  const name = /^[a-z_]+/.exec(path)?.[0];
  return name === 'url' || name === 'events' || name === 'description' ? name : null;
}

/** The account's webhooks: subscribe, change, pause and resume, delete, rotate the secret, send a test, read the delivery log, replay. */
export function Webhooks({ credential }: { credential: Credential }) {
  const i18n = useI18n();
  const { t } = i18n;
  const message = (error: unknown) => explainError(i18n, error);
  const [hooks, setHooks] = useState<WebhookView[] | null>(null);
  const [editing, setEditing] = useState<WebhookView | 'new' | null>(null);
  const [secret, setSecret] = useState<{ title: string; secret: string } | null>(null);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [logVersion, setLogVersion] = useState(0);

  const client = gateClient(credential);
  const webhook = (hook: WebhookView) => ({ params: { path: { id: hook.id } } });
  const load = () => dataOf(client.GET('/api/v1/webhooks')).then(setHooks, (e) => setNotice({ ok: false, text: message(e) }));
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
      const rotated = await dataOf(client.POST('/api/v1/webhooks/{id}/rotate-secret', webhook(hook)));
      // The panel sends no Idempotency-Key: an answer is never a replay, so the secret is always in it.
      setSecret({ title: t('webhooks.newSecret', { url: hook.url }), secret: rotated.secret! });
      setNotice({ ok: true, text: t('webhooks.rotated', { time: i18n.time(rotated.previous_secret_expires_at) }) });
      void load();
    });
  const test = (hook: WebhookView) =>
    act(async () => {
      await dataOf(client.POST('/api/v1/webhooks/{id}/test', webhook(hook)));
      setNotice({ ok: true, text: t('webhooks.testSent', { url: hook.url }) });
      setOpen(hook.id);
      setLogVersion((n) => n + 1);
    });
  const toggle = (hook: WebhookView) =>
    act(async () => {
      await dataOf(client.PATCH('/api/v1/webhooks/{id}', { ...webhook(hook), body: { enabled: !hook.enabled } }));
      setNotice({
        ok: true,
        text: t(hook.enabled ? 'webhooks.pausedNotice' : 'webhooks.resumedNotice', { url: hook.url }),
      });
      void load();
    });
  const remove = (hook: WebhookView) =>
    act(async () => {
      setConfirming(null);
      if (open === hook.id) setOpen(null);
      await dataOf(client.DELETE('/api/v1/webhooks/{id}', webhook(hook)));
      setNotice({ ok: true, text: t('webhooks.deleted', { url: hook.url }) });
      void load();
    });

  return (
    <div class="webhooks stack">
      <p class="muted">{t('webhooks.intro')}</p>
      {secret && (
        <section class="notice" aria-labelledby="webhook-secret-title">
          <h2 id="webhook-secret-title">{secret.title}</h2>
          <p>
            <strong>{t('webhooks.secret.once')}</strong> {t('webhooks.secret.text')}
          </p>
          <code class="secret">{secret.secret}</code>
          <button type="button" onClick={() => setSecret(null)}>
            {t('common.copied')}
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
            // Never a replay (no Idempotency-Key): the secret is there.
            if (created) setSecret({ title: t('webhooks.createdSecret', { url: created.url }), secret: created.secret! });
            setNotice({ ok: true, text });
            void load();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <div class="row">
          <button type="button" class="primary" onClick={() => setEditing('new')}>
            {t('webhooks.new')}
          </button>
        </div>
      )}
      <ListTable
        caption={t('webhooks.caption')}
        headings={[
          t('webhooks.col.url'),
          t('webhooks.col.state'),
          t('webhooks.col.events'),
          t('webhooks.col.description'),
          t('webhooks.col.created'),
        ]}
        actions={t('webhooks.col.actions')}
        items={hooks}
        itemKey={(hook) => hook.id}
        empty={t('webhooks.empty')}
        row={(hook) => (
          <tr>
            <td>
              <code>{hook.url}</code>
            </td>
            <td>
              <WebhookState hook={hook} />
            </td>
            <td>{hook.events ? hook.events.join(', ') : t('webhooks.everyEvent')}</td>
            <td>{hook.description ?? '—'}</td>
            <td>{i18n.time(hook.created_at)}</td>
            <td class="row">
              <button type="button" aria-label={t('webhooks.editNamed', { url: hook.url })} onClick={() => setEditing(hook)}>
                {t('webhooks.edit')}
              </button>
              <button
                type="button"
                aria-expanded={open === hook.id}
                aria-label={t('webhooks.logNamed', { url: hook.url })}
                onClick={() => setOpen(open === hook.id ? null : hook.id)}
              >
                {t('webhooks.log')}
              </button>
              <button type="button" aria-label={t('webhooks.testNamed', { url: hook.url })} onClick={() => void test(hook)}>
                {t('webhooks.test')}
              </button>
              <button type="button" aria-label={t('webhooks.rotateNamed', { url: hook.url })} onClick={() => void rotate(hook)}>
                {t('webhooks.rotate')}
              </button>
              <button
                type="button"
                aria-label={t(hook.enabled ? 'webhooks.pauseNamed' : 'webhooks.resumeNamed', { url: hook.url })}
                onClick={() => void toggle(hook)}
              >
                {t(hook.enabled ? 'webhooks.pause' : 'webhooks.resume')}
              </button>
              <ConfirmDelete
                asking={confirming === hook.id}
                label={t('webhooks.deleteNamed', { url: hook.url })}
                confirm={t('webhooks.deleteConfirm')}
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
  onDone: (created: WithSecret | null, text: string) => void;
  onCancel: () => void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const { hook } = props;
  const [url, setUrl] = useState(hook?.url ?? '');
  const [events, setEvents] = useState(eventsText(hook?.events ?? null));
  const [description, setDescription] = useState(hook?.description ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const client = gateClient(props.credential);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setProblem(null);
    const list = eventsOf(events);
    try {
      if (hook) {
        const body = { url: url.trim(), events: list.length ? list : null, description: description.trim() || null };
        await dataOf(client.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: hook.id } }, body }));
        props.onDone(null, t('webhooks.saved', { url: url.trim() }));
      } else {
        const body = {
          url: url.trim(),
          ...(list.length ? { events: list } : {}),
          ...(description.trim() ? { description: description.trim() } : {}),
        };
        const created = await dataOf(client.POST('/api/v1/webhooks', { body }));
        props.onDone(created, t('webhooks.created', { url: created.url }));
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        const found: FieldErrors = {};
        const loose: string[] = [];
        for (const issue of issuesOf(error)) {
          const field = fieldOf(issue.path);
          if (field) (found[field] ??= []).push(issue.message);
          else loose.push(`${issue.path || t('webhooks.webhook')}: ${issue.message}`);
        }
        setErrors(found);
        if (loose.length || Object.keys(found).length === 0) setProblem(loose.join('; ') || error.message);
      } else if (error instanceof ApiError && error.code === 'WEBHOOK_URL_NOT_ALLOWED') {
        setErrors({ url: [explainUrlNotAllowed(i18n, error)] });
      } else {
        setProblem(explainError(i18n, error));
      }
    } finally {
      setBusy(false);
    }
  };

  const title = hook ? t('webhooks.form.edit') : t('webhooks.form.new');
  return (
    <form class="stack webhook-form" aria-label={title} onSubmit={(event) => void submit(event)} noValidate>
      <h2>{title}</h2>
      <TextField
        id="webhook-url"
        label={t('webhooks.col.url')}
        value={url}
        errors={errors.url}
        onInput={setUrl}
        hint={t('webhooks.form.urlHint')}
      />
      <TextField
        id="webhook-events"
        label={t('webhooks.col.events')}
        value={events}
        errors={errors.events}
        onInput={setEvents}
        hint={t('webhooks.form.eventsHint')}
      />
      <TextField
        id="webhook-description"
        label={t('webhooks.col.description')}
        value={description}
        errors={errors.description}
        onInput={setDescription}
      />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {hook ? t('webhooks.form.save') : t('webhooks.form.create')}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          {t('common.cancel')}
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
  const i18n = useI18n();
  const { t } = i18n;
  const message = (error: unknown) => explainError(i18n, error);
  const { credential, hook } = props;
  const [items, setItems] = useState<Attempt[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [paged, setPaged] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [afterSeq, setAfterSeq] = useState('0');
  const [replayed, setReplayed] = useState<{ ok: boolean; text: string } | null>(null);
  const pagedRef = useRef(false);

  const client = gateClient(credential);
  const page = (cursor?: string) =>
    dataOf(client.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: hook.id }, query: { cursor } } }));
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
    if (!/^\d+$/.test(afterSeq.trim()) || !Number.isSafeInteger(seq)) return setReplayed({ ok: false, text: t('webhooks.replay.badSeq') });
    try {
      const done = await dataOf(
        client.POST('/api/v1/webhooks/{id}/replay', { params: { path: { id: hook.id } }, body: { after_seq: seq } }),
      );
      setReplayed({
        ok: true,
        text:
          done.queued === 0
            ? t('webhooks.replay.none', { seq })
            : [
                t('webhooks.replay.queued', { count: done.queued, last: done.last_seq ?? 0 }),
                done.more ? t('webhooks.replay.more', { last: done.last_seq ?? 0 }) : '',
              ]
                .filter(Boolean)
                .join(' '),
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
        caption={t('webhooks.deliveries.caption', { url: hook.url })}
        headings={[
          t('webhooks.deliveries.event'),
          t('webhooks.deliveries.seq'),
          t('webhooks.deliveries.attempt'),
          t('webhooks.deliveries.status'),
          t('webhooks.deliveries.response'),
          t('webhooks.deliveries.duration'),
          t('webhooks.deliveries.next'),
          t('webhooks.deliveries.when'),
        ]}
        items={items}
        itemKey={(item) => item.id}
        empty={t('webhooks.deliveries.empty')}
        row={(item) => (
          <tr class="delivery">
            <td>{item.type}</td>
            <td>{item.seq ?? '—'}</td>
            <td>{item.attempt}</td>
            <td>
              <span class={`status status-${item.status}`} data-status={item.status}>
                {t(`webhooks.delivery.${item.status}`)}
              </span>
              {item.error && <span class="muted"> ({item.error})</span>}
            </td>
            <td>{item.response_status ?? '—'}</td>
            <td>{t('webhooks.deliveries.ms', { ms: item.duration_ms })}</td>
            <td>{i18n.time(item.next_attempt_at)}</td>
            <td>{i18n.time(item.created_at)}</td>
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
            {t('webhooks.deliveries.older')}
          </button>
        )}
        {paged && (
          <button type="button" onClick={newest}>
            {t('webhooks.deliveries.newest')}
          </button>
        )}
      </div>
      <form class="row" onSubmit={(event) => void replay(event)} aria-label={t('webhooks.replay.form', { url: hook.url })}>
        <label for={`replay-${hook.id}`}>{t('webhooks.replay.after')}</label>
        <input id={`replay-${hook.id}`} inputMode="numeric" value={afterSeq} onInput={(e) => setAfterSeq(e.currentTarget.value)} />
        <button type="submit">{t('webhooks.replay.submit')}</button>
        {replayed && (
          <span class={replayed.ok ? 'success' : 'error'} role={replayed.ok ? 'status' : 'alert'}>
            {replayed.text}
          </span>
        )}
      </form>
    </div>
  );
}
