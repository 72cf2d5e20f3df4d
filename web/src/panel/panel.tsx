import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import type { Schemas } from '../shared/schemas.js';
import { explainError } from '../shared/explain.js';
import { LanguageSwitch, type Translator, useI18n } from '../shared/i18n.js';
import { session } from '../shared/session.js';
import { Accounts } from './accounts.js';
import { Board } from './board.js';
import { Booking } from './booking.js';
import { Bookings } from './bookings.js';
import { Capacity } from './capacity.js';
import { Layouts } from './layouts.js';
import { Webhooks } from './webhooks.js';

export type AccountKind = 'terminal' | 'carrier' | 'admin';
const KEY = 'gate.panel.apiKey';

/** Who a key is (GET /api/v1/me): its account's kind, which decides the pages, and name. */
export type KeyOwner = Schemas['MeView'];

const whoIs = (credential: Credential) => dataOf(gateClient(credential).GET('/api/v1/me'));

function signInProblem(i18n: Translator, error: unknown): string {
  if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return i18n.t('panel.signIn.unknownKey');
  return explainError(i18n, error);
}

export function Panel() {
  const i18n = useI18n();
  const [key, setKey] = useState(session.get(KEY));
  const [owner, setOwner] = useState<KeyOwner | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!key || owner) return;
    whoIs({ apiKey: key }).then(setOwner, (error) => {
      session.remove(KEY);
      setKey(null);
      setProblem(signInProblem(i18n, error));
    });
  }, [key]);

  const signIn = async (value: string) => {
    setProblem(null);
    try {
      const found = await whoIs({ apiKey: value });
      session.set(KEY, value);
      setOwner(found);
      setKey(value);
    } catch (error) {
      setProblem(signInProblem(i18n, error));
    }
  };
  const signOut = () => {
    session.remove(KEY);
    setKey(null);
    setOwner(null);
  };

  if (!key) return <SignIn problem={problem} onSignIn={signIn} />;
  if (!owner)
    return (
      <main class="panel-signin">
        <p role="status">{i18n.t('panel.signIn.busy')}</p>
      </main>
    );
  return <Signed credential={{ apiKey: key }} kind={owner.kind} name={owner.name} onSignOut={signOut} />;
}

function SignIn({ problem, onSignIn }: { problem: string | null; onSignIn: (key: string) => Promise<void> }) {
  const { t } = useI18n();
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!value.trim()) return;
    setBusy(true);
    await onSignIn(value.trim());
    setBusy(false);
  };
  return (
    <main class="panel-signin">
      <div class="row panel-signin-head">
        <h1>{t('panel.title')}</h1>
        <LanguageSwitch />
      </div>
      <p class="muted">{t('panel.signIn.who')}</p>
      <form class="stack" onSubmit={(event) => void submit(event)}>
        <label for="api-key">{t('panel.signIn.key')}</label>
        <input id="api-key" type="password" autocomplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('panel.signIn.busy') : t('panel.signIn.submit')}
        </button>
      </form>
      <p class="muted">{t('panel.signIn.kept')}</p>
      <FirstRun />
    </main>
  );
}

/** For whoever has no key yet: where one comes from (the demo seed, the operator CLI, or an admin). */
function FirstRun() {
  const { t } = useI18n();
  return (
    <section class="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">{t('panel.firstRun.title')}</h2>
      <p>{t('panel.firstRun.seed')}</p>
      <pre>
        <code>npm run seed:demo</code>
      </pre>
      <p>{t('panel.firstRun.cli')}</p>
      <pre>
        <code>npm run cli -- account:create --kind terminal --name "Port A"</code>
      </pre>
      <p class="muted">{t('panel.firstRun.stopped')}</p>
      <p class="muted">{t('panel.firstRun.admin')}</p>
    </section>
  );
}

type Page = 'board' | 'capacity' | 'book' | 'bookings' | 'layouts' | 'webhooks' | 'accounts';

function Signed(props: { credential: Credential; kind: AccountKind; name: string | null; onSignOut: () => void }) {
  const { t } = useI18n();
  const pages: [Page, string][] =
    props.kind === 'admin'
      ? [['accounts', t('panel.nav.accounts')]]
      : [
          ['board', props.kind === 'terminal' ? t('panel.nav.appointments') : t('panel.nav.trips')],
          ...(props.kind === 'terminal'
            ? ([['capacity', t('panel.nav.capacity')]] as [Page, string][])
            : ([
                ['book', t('panel.nav.book')],
                ['bookings', t('panel.nav.bookings')],
              ] as [Page, string][])),
          ['layouts', t('panel.nav.layouts')],
          ['webhooks', t('panel.nav.webhooks')],
        ];
  const [page, setPage] = useState<Page>(pages[0][0]);
  return (
    <div class="panel">
      <header class="panel-bar">
        <h1>{t('panel.title')}</h1>
        <span class="account-kind">
          {props.name && `${props.name} · `}
          {t(`panel.kind.${props.kind}`)}
        </span>
        <nav aria-label={t('panel.nav.label')}>
          {pages.map(([name, label]) => (
            <button key={name} type="button" class="tab" aria-current={page === name ? 'page' : undefined} onClick={() => setPage(name)}>
              {label}
            </button>
          ))}
        </nav>
        <LanguageSwitch />
        <button type="button" onClick={props.onSignOut}>
          {t('panel.signOut')}
        </button>
      </header>
      <main class="panel-main">
        {page === 'layouts' && <Layouts credential={props.credential} kind={props.kind as 'terminal' | 'carrier'} />}
        {page === 'board' && <Board credential={props.credential} kind={props.kind as 'terminal' | 'carrier'} />}
        {page === 'capacity' && <Capacity credential={props.credential} />}
        {page === 'book' && <Booking credential={props.credential} />}
        {page === 'bookings' && <Bookings credential={props.credential} />}
        {page === 'webhooks' && <Webhooks credential={props.credential} />}
        {page === 'accounts' && <Accounts credential={props.credential} />}
      </main>
    </div>
  );
}
