import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { LanguageSwitch, useI18n } from '../shared/i18n.js';
import { session } from '../shared/session.js';
import { AccessProvider, type Me, mayOf, type Page, pageOfHash, pagesOf, roleWord } from './access.js';
import { AccountSettings } from './account-settings.js';
import { AccountKeys } from './account-keys.js';
import { Accounts } from './accounts.js';
import { Audit } from './audit.js';
import { Board } from './board.js';
import { Booking } from './booking.js';
import { Bookings } from './bookings.js';
import { Capacity } from './capacity.js';
import { Gate } from './gate.js';
import { Invitation, invitationTokenOf } from './invitation.js';
import { Reports } from './reports.js';
import { Layouts } from './layouts.js';
import { MfaSetupOnly, MyAccount } from './my-account.js';
import { SignIn, ssoErrorOf } from './sign-in.js';
import { Users } from './users.js';
import { Webhooks } from './webhooks.js';

const KEY = 'gate.panel.apiKey';

const whoIs = (credential: Credential) => dataOf(gateClient(credential).GET('/api/v1/me'));

/** The signed-in caller: an API key (kept in this tab's session storage) or a session (its cookie HttpOnly, never read here). */
interface Signed {
  credential: Credential;
  me: Me;
}

/**
 * The panel: on load it asks the service whether this tab holds a key, else whether the browser holds a session
 * (`GET /api/v1/me` with the cookie), and shows the sign-in form when neither; `#invitation=<token>` opens the
 * invitation's acceptance first.
 */
export function Panel() {
  const { t } = useI18n();
  const [signed, setSigned] = useState<Signed | null>(null);
  const [checking, setChecking] = useState(true);
  const [problem, setProblem] = useState<{ code: string } | null>(null);
  const [invitation, setInvitation] = useState(() => invitationTokenOf(location.hash));

  const signedIn = async (credential: Credential) => {
    const me = await whoIs(credential);
    if ('apiKey' in credential) session.set(KEY, credential.apiKey);
    setSigned({ credential, me });
  };

  // An invitation link opened in a tab where the panel is open already changes only the address's fragment.
  useEffect(() => {
    const follow = () => {
      const token = invitationTokenOf(location.hash);
      if (token) setInvitation(token);
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  useEffect(() => {
    const ssoError = ssoErrorOf(location.hash);
    if (ssoError) {
      setProblem(ssoError);
      history.replaceState(null, '', location.pathname + location.search);
    }
    const key = session.get(KEY);
    const first: Credential = key ? { apiKey: key } : { csrfToken: '' };
    whoIs(first)
      .then(
        (me) => setSigned({ credential: 'apiKey' in first ? first : { csrfToken: me.csrf_token ?? '' }, me }),
        () => {
          if (key) session.remove(KEY);
        },
      )
      .finally(() => setChecking(false));
  }, []);

  const signOut = async () => {
    if (signed && 'csrfToken' in signed.credential) {
      // The cookie is HttpOnly: only the service can end the session and clear it.
      await dataOf(gateClient(signed.credential).DELETE('/api/v1/sessions/current')).catch(() => undefined);
    }
    session.remove(KEY);
    setSigned(null);
    history.replaceState(null, '', location.pathname + location.search);
  };

  if (invitation)
    return (
      <Invitation
        token={invitation}
        onAccepted={(csrfToken) => {
          history.replaceState(null, '', location.pathname + location.search);
          setInvitation(null);
          void signedIn({ csrfToken });
        }}
        onLeave={() => {
          history.replaceState(null, '', location.pathname + location.search);
          setInvitation(null);
        }}
      />
    );
  if (checking)
    return (
      <main class="panel-signin">
        <p role="status">{t('common.loading')}</p>
      </main>
    );
  if (!signed) return <SignIn problem={problem} onSignedIn={signedIn} />;
  return (
    <AccessProvider may={mayOf(signed.me)}>
      <SignedPanel
        credential={signed.credential}
        me={signed.me}
        onSignOut={() => void signOut()}
        onChanged={() => void signedIn(signed.credential)}
      />
    </AccessProvider>
  );
}

/** The page the address names (`#users`), kept in step with the address bar. */
function useAddressedPage(): [Page | null, (page: Page) => void] {
  const [page, setPage] = useState(() => pageOfHash(location.hash));
  useEffect(() => {
    const follow = () => setPage(pageOfHash(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const go = (next: Page) => {
    history.pushState(null, '', `#${next}`);
    setPage(next);
  };
  return [page, go];
}

function SignedPanel(props: { credential: Credential; me: Me; onSignOut: () => void; onChanged: () => void }) {
  const { t } = useI18n();
  const { me, credential } = props;
  const pages = pagesOf(me);
  const [addressed, go] = useAddressedPage();
  if (me.mfa_setup_required) return <MfaSetupOnly credential={credential} me={me} onDone={props.onChanged} onSignOut={props.onSignOut} />;
  const allowed = (page: Page) => pages.some((entry) => entry.page === page);
  // No address: the first page the person may use (the board for a gate clerk, filtered to today).
  const page = addressed ?? pages[0]?.page ?? null;
  const kind = me.kind;
  const role = me.user?.role;
  return (
    <div class="panel">
      <header class="panel-bar">
        <h1>{t('panel.title')}</h1>
        <span class="account-kind">
          {me.name && `${me.name} · `}
          {t(`panel.kind.${kind}`)}
        </span>
        {me.user && (
          <span class="person">
            {me.user.name || me.user.email}
            {role && ` · ${roleWord(t, role)}`}
          </span>
        )}
        <nav aria-label={t('panel.nav.label')}>
          {pages.map(({ page: name, label }) => (
            <button key={name} type="button" class="tab" aria-current={page === name ? 'page' : undefined} onClick={() => go(name)}>
              {t(label)}
            </button>
          ))}
        </nav>
        <LanguageSwitch />
        <button type="button" onClick={props.onSignOut}>
          {t('panel.signOut')}
        </button>
      </header>
      <main class="panel-main">
        {page === null || !allowed(page) ? (
          <section class="notice" role="status" aria-labelledby="not-available-title">
            <h2 id="not-available-title">{t('panel.notAvailable.title')}</h2>
            <p>{t('panel.notAvailable.text')}</p>
          </section>
        ) : (
          <>
            {page === 'layouts' && <Layouts credential={credential} kind={kind as 'terminal' | 'carrier'} />}
            {page === 'board' && <Board credential={credential} kind={kind as 'terminal' | 'carrier'} today={role === 'gate'} />}
            {page === 'gate' && <Gate credential={credential} />}
            {page === 'capacity' && <Capacity credential={credential} />}
            {page === 'book' && <Booking credential={credential} />}
            {page === 'bookings' && <Bookings credential={credential} />}
            {page === 'reports' && <Reports credential={credential} kind={kind as 'terminal' | 'carrier'} />}
            {page === 'webhooks' && <Webhooks credential={credential} />}
            {page === 'accounts' && <Accounts credential={credential} />}
            {page === 'users' && <Users credential={credential} kind={kind} />}
            {page === 'account' && <AccountSettings credential={credential} kind={kind} />}
            {page === 'keys' && <AccountKeys credential={credential} />}
            {page === 'audit' && <Audit credential={credential} kind={kind} />}
            {page === 'me' && <MyAccount credential={credential} me={me} onChanged={props.onChanged} onSignedOut={props.onSignOut} />}
          </>
        )}
      </main>
    </div>
  );
}
