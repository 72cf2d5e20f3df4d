import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Credential } from '../shared/api.js';
import { session } from '../shared/session.js';
import { Accounts } from './accounts.js';
import { Board } from './board.js';
import { Layouts } from './layouts.js';
import { Webhooks } from './webhooks.js';

export type AccountKind = 'terminal' | 'carrier' | 'admin';
const KEY = 'gate.panel.apiKey';

/**
 * The service has no "who am I" route: the kind of a key shows in what it may read. Each probe is a read
 * that only one kind is allowed (403 FORBIDDEN for the others).
 */
async function kindOf(credential: Credential): Promise<AccountKind> {
  const probes: [AccountKind, string][] = [
    ['terminal', '/api/v1/appointments?limit=1'],
    ['carrier', '/api/v1/trips?limit=1'],
    ['admin', '/api/v1/admin/accounts'],
  ];
  for (const [kind, path] of probes) {
    try {
      await api(credential, 'GET', path);
      return kind;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'FORBIDDEN') continue;
      throw error;
    }
  }
  throw new ApiError(403, 'FORBIDDEN', 'This key cannot use the panel');
}

function signInProblem(error: unknown): string {
  if (error instanceof ApiError && error.code === 'UNAUTHORIZED') return 'This API key is unknown or was revoked.';
  return error instanceof Error ? error.message : String(error);
}

export function Panel() {
  const [key, setKey] = useState(session.get(KEY));
  const [kind, setKind] = useState<AccountKind | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!key || kind) return;
    kindOf({ apiKey: key }).then(setKind, (error) => {
      session.remove(KEY);
      setKey(null);
      setProblem(signInProblem(error));
    });
  }, [key]);

  const signIn = async (value: string) => {
    setProblem(null);
    try {
      const found = await kindOf({ apiKey: value });
      session.set(KEY, value);
      setKind(found);
      setKey(value);
    } catch (error) {
      setProblem(signInProblem(error));
    }
  };
  const signOut = () => {
    session.remove(KEY);
    setKey(null);
    setKind(null);
  };

  if (!key) return <SignIn problem={problem} onSignIn={signIn} />;
  if (!kind)
    return (
      <main class="panel-signin">
        <p role="status">Signing in…</p>
      </main>
    );
  return <Signed credential={{ apiKey: key }} kind={kind} onSignOut={signOut} />;
}

function SignIn({ problem, onSignIn }: { problem: string | null; onSignIn: (key: string) => Promise<void> }) {
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
      <h1>Gate panel</h1>
      <p class="muted">For terminals, carriers and administrators of the gate service.</p>
      <form class="stack" onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autocomplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted">The key stays in this browser tab only, and is forgotten when you close it or sign out.</p>
    </main>
  );
}

type Page = 'board' | 'layouts' | 'webhooks' | 'accounts';

function Signed(props: { credential: Credential; kind: AccountKind; onSignOut: () => void }) {
  const pages: [Page, string][] =
    props.kind === 'admin'
      ? [['accounts', 'Accounts']]
      : [
          ['board', props.kind === 'terminal' ? 'Appointments' : 'Trips'],
          ['layouts', 'Layouts'],
          ['webhooks', 'Webhooks'],
        ];
  const [page, setPage] = useState<Page>(pages[0][0]);
  return (
    <div class="panel">
      <header class="panel-bar">
        <h1>Gate panel</h1>
        <span class="account-kind">{props.kind} account</span>
        <nav aria-label="Panel">
          {pages.map(([name, label]) => (
            <button key={name} type="button" class="tab" aria-current={page === name ? 'page' : undefined} onClick={() => setPage(name)}>
              {label}
            </button>
          ))}
        </nav>
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <main class="panel-main">
        {page === 'layouts' && <Layouts credential={props.credential} kind={props.kind as 'terminal' | 'carrier'} />}
        {page === 'board' && <Board credential={props.credential} kind={props.kind as 'terminal' | 'carrier'} />}
        {page === 'webhooks' && <Webhooks credential={props.credential} />}
        {page === 'accounts' && <Accounts credential={props.credential} />}
      </main>
    </div>
  );
}
