import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import { useLatest } from '../shared/latest.js';
import type { Schemas } from '../shared/schemas.js';
import { type AccountKind, useMay } from './access.js';
import { AUDIT_ACTIONS, type AuditResource, actionSentence, actorWords, changeLines, resourceWord, whatWords } from './audit-words.js';
import { useLayoutNames } from './layout-names.js';
import { ListTable } from './list-table.js';

type Entry = Schemas['AuditEntryDto'];
type Account = Schemas['AccountView'];

/** The actor filter's choice for an id typed by hand. */
const TYPED = '+typed';

interface Filters {
  /** Local calendar dates (`2026-11-29`), from the start of `from` to the end of `to`. */
  from: string;
  to: string;
  action: string;
  /** An actor's id chosen from those seen, or TYPED for `actorTyped`. */
  actor: string;
  actorTyped: string;
  targetRef: string;
}
const NO_FILTERS: Filters = { from: '', to: '', action: '', actor: '', actorTyped: '', targetRef: '' };

/** The start of a local calendar date, `days` later, as the instant the API takes. */
function startOf(date: string, days = 0): string {
  const [year, month, day] = date.split('-').map(Number);
  return new Date(year, month - 1, day + days).toISOString();
}

/** The range the filters' dates give, in the API's terms (`to` is exclusive: the day after the last one chosen). */
function rangeOf(filters: Filters, accountId: string | null) {
  return {
    ...(filters.from ? { from: startOf(filters.from) } : {}),
    ...(filters.to ? { to: startOf(filters.to, 1) } : {}),
    ...(accountId ? { account_id: accountId } : {}),
  };
}

/**
 * The audit trail (docs/audit.md), for those who may read it: who did what, when and from where, newest first, a page
 * at a time, filtered by dates, action, who and what; exported (CSV, NDJSON) and its chain verified. An admin picks
 * the account whose trail to read.
 */
export function Audit({ credential, kind }: { credential: Credential; kind: AccountKind }) {
  const i18n = useI18n();
  const { t } = i18n;
  const may = useMay();
  const client = gateClient(credential);
  const layoutName = useLayoutNames(credential, kind !== 'admin' && may('layouts:read') ? ['ticket'] : []);
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [accountId, setAccountId] = useState<string | null>(null);
  const [form, setForm] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<{ ok: boolean; text: string } | null>(null);
  /** Every actor seen on this page, by id: the actor filter's choices. */
  const [actors, setActors] = useState<Map<string, Entry['actor']>>(new Map());
  const latest = useLatest();

  useEffect(() => {
    if (kind === 'admin') void dataOf(client.GET('/api/v1/admin/accounts')).then(setAccounts, (e) => setProblem(explainError(i18n, e)));
  }, []);

  const load = async (after: string | null) => {
    const current = latest.begin();
    const actorId = filters.actor === TYPED ? filters.actorTyped.trim() : filters.actor;
    const query = {
      ...rangeOf(filters, accountId),
      ...(filters.action ? { action: filters.action } : {}),
      ...(actorId ? { actor_id: actorId } : {}),
      ...(filters.targetRef.trim() ? { target_ref: filters.targetRef.trim() } : {}),
      ...(after ? { cursor: after } : {}),
    };
    try {
      const page = await dataOf(client.GET('/api/v1/audit', { params: { query } }));
      if (!current()) return;
      setEntries((shown) => (after && shown ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
      setProblem(null);
      setActors((seen) => {
        const next = new Map(seen);
        for (const { actor } of page.items) if (actor.id && !next.has(actor.id)) next.set(actor.id, actor);
        return next.size === seen.size ? seen : next;
      });
    } catch (error) {
      if (current()) setProblem(explainError(i18n, error));
    }
  };
  useEffect(() => {
    setEntries(null);
    setVerdict(null);
    void load(null);
  }, [filters, accountId]);

  const exportUrl = (format: 'csv' | 'ndjson') =>
    `/api/v1/audit/export?${new URLSearchParams({ ...rangeOf(filters, accountId), format }).toString()}`;

  /** A key is sent as a header, which a link cannot carry: the file is fetched, then handed to the browser to save. */
  const downloadWithKey = async (format: 'csv' | 'ndjson', apiKey: string) => {
    try {
      const response = await fetch(exportUrl(format), { headers: { 'X-API-Key': apiKey }, credentials: 'omit', cache: 'no-store' });
      if (!response.ok) throw new Error(String(response.status));
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `audit.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };

  const verify = async () => {
    try {
      const answer = await dataOf(client.GET('/api/v1/audit/verify', { params: { query: rangeOf(filters, accountId) } }));
      setVerdict(
        answer.ok
          ? { ok: true, text: t('audit.verify.ok', { count: answer.checked }) }
          : { ok: false, text: t('audit.verify.broken', { seq: answer.first_broken_seq ?? answer.checked + 1 }) },
      );
    } catch (error) {
      setVerdict({ ok: false, text: explainError(i18n, error) });
    }
  };

  const update = <K extends keyof Filters>(name: K, value: Filters[K]) => setForm((current) => ({ ...current, [name]: value }));

  return (
    <div class="audit stack">
      {kind === 'admin' && (
        <div class="stack">
          <label for="audit-account">{t('audit.account')}</label>
          <select id="audit-account" value={accountId ?? ''} onChange={(e) => setAccountId(e.currentTarget.value || null)}>
            <option value="">{t('audit.noAccount')}</option>
            {accounts.map((account) => (
              <option key={account.id} value={account.id}>
                {account.name} · {t(`accounts.kind.${account.kind}`)}
              </option>
            ))}
          </select>
        </div>
      )}
      <form
        class="filters"
        aria-label={t('audit.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...form });
        }}
      >
        <div class="filter-grid">
          <div class="stack">
            <label for="audit-from">{t('audit.from')}</label>
            <input id="audit-from" type="date" value={form.from} onInput={(e) => update('from', e.currentTarget.value)} />
          </div>
          <div class="stack">
            <label for="audit-to">{t('audit.to')}</label>
            <input
              id="audit-to"
              type="date"
              value={form.to}
              min={form.from || undefined}
              onInput={(e) => update('to', e.currentTarget.value)}
            />
          </div>
          <div class="stack">
            <label for="audit-action">{t('audit.action')}</label>
            <select id="audit-action" value={form.action} onChange={(e) => update('action', e.currentTarget.value)}>
              <option value="">{t('audit.anyAction')}</option>
              {(Object.keys(AUDIT_ACTIONS) as AuditResource[]).map((resource) => (
                <optgroup key={resource} label={resourceWord(i18n, resource)}>
                  {AUDIT_ACTIONS[resource].map((verb) => {
                    const sentence = actionSentence(i18n, `${resource}.${verb}`);
                    return (
                      <option key={verb} value={`${resource}.${verb}`}>
                        {sentence.charAt(0).toLocaleUpperCase(i18n.language) + sentence.slice(1)}
                      </option>
                    );
                  })}
                </optgroup>
              ))}
            </select>
          </div>
          <div class="stack">
            <label for="audit-actor">{t('audit.actor')}</label>
            <select id="audit-actor" value={form.actor} onChange={(e) => update('actor', e.currentTarget.value)}>
              <option value="">{t('audit.anyone')}</option>
              {[...actors].map(([id, actor]) => (
                <option key={id} value={id}>
                  {actorWords(i18n, actor)}
                </option>
              ))}
              <option value={TYPED}>{t('audit.actorTyped')}</option>
            </select>
          </div>
          {form.actor === TYPED && (
            <div class="stack">
              <label for="audit-actor-id">{t('audit.actorId')}</label>
              <input
                id="audit-actor-id"
                autocomplete="off"
                spellcheck={false}
                value={form.actorTyped}
                onInput={(e) => update('actorTyped', e.currentTarget.value)}
              />
            </div>
          )}
          <div class="stack">
            <label for="audit-target">{t('audit.targetRef')}</label>
            <input
              id="audit-target"
              autocomplete="off"
              value={form.targetRef}
              onInput={(e) => update('targetRef', e.currentTarget.value)}
            />
          </div>
        </div>
        <div class="row">
          <button type="submit" class="primary">
            {t('audit.apply')}
          </button>
          <button type="button" onClick={() => (setForm(NO_FILTERS), setFilters(NO_FILTERS))}>
            {t('audit.clear')}
          </button>
        </div>
      </form>
      <section class="detail stack" aria-labelledby="audit-export-title">
        <h2 id="audit-export-title">{t('audit.export.title')}</h2>
        <p class="muted">{t('audit.export.explain')}</p>
        <div class="row">
          {(['csv', 'ndjson'] as const).map((format) =>
            'apiKey' in credential ? (
              <button key={format} type="button" onClick={() => void downloadWithKey(format, credential.apiKey)}>
                {t(`audit.export.${format}`)}
              </button>
            ) : (
              // A session's cookie goes with a link by itself: the browser streams the file to disk as it comes.
              <a key={format} class="button" href={exportUrl(format)} download={`audit.${format}`}>
                {t(`audit.export.${format}`)}
              </a>
            ),
          )}
          <button type="button" onClick={() => void verify()}>
            {t('audit.verify')}
          </button>
        </div>
        {verdict && (
          <p class={verdict.ok ? 'success' : 'error'} role={verdict.ok ? 'status' : 'alert'}>
            {verdict.text}
          </p>
        )}
      </section>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ListTable
        caption={t('audit.caption')}
        headings={[t('audit.when'), t('audit.actor'), t('audit.what'), t('audit.changes'), t('audit.address')]}
        items={entries}
        itemKey={(entry) => entry.id}
        empty={t('audit.empty')}
        row={(entry) => {
          const changes = changeLines(i18n, entry);
          return (
            <tr data-action={entry.action}>
              <td>
                <time dateTime={entry.at}>{i18n.time(entry.at)}</time>
              </td>
              <td>{actorWords(i18n, entry.actor)}</td>
              <td>{whatWords(i18n, entry, layoutName)}</td>
              <td>
                {changes.length > 0 ? (
                  <ul class="changes">
                    {changes.map((change) => (
                      <li key={change.field}>
                        {change.field}: {change.values ?? t('audit.changed')}
                      </li>
                    ))}
                  </ul>
                ) : (
                  '—'
                )}
              </td>
              <td>{entry.ip ?? '—'}</td>
            </tr>
          );
        }}
      />
      {cursor && entries && (
        <button type="button" onClick={() => void load(cursor)}>
          {t('audit.more')}
        </button>
      )}
    </div>
  );
}
