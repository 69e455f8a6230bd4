// The app shell: finds the session (or redeems a login link), then shows the pages of its
// kind — the account cabinet or the operator console — under one header with the
// navigation, the language switch and the sign-out button.
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage, Link, Loading } from './components/common.js';
import { consoleHome, consolePages } from './console/pages.js';
import { I18nProvider, languages, useI18n, type Language } from './i18n/index.js';
import { accountPages } from './pages/account-pages.js';
import { JoinPage } from './pages/join.js';
import { LoginPage, SignedOutPage } from './pages/login.js';
import { publicPages } from './pages/public-pages.js';
import { NotFoundPage } from './pages/not-found.js';
import { findPage, type PageDefinition } from './pages/registry.js';
import { navigate, usePagePath } from './router.js';
import { loadSession, logOut, type Session } from './session.js';
import { SessionContext } from './session-context.js';

export function App() {
  return (
    <I18nProvider>
      <Shell />
    </I18nProvider>
  );
}

function Shell() {
  const { t } = useI18n();
  const path = usePagePath();
  /** undefined: not known yet; null: nobody is signed in. */
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  // Sign-up, forgotten password and the pages of email links: shown whether or not anyone is
  // signed in, without asking (a visitor's 401 would be a console error on every such page).
  const publicPage = findPage(publicPages, path);
  useEffect(() => {
    if (path === '/login' || publicPage) return; // the login page finds its session by redeeming the link (or a password)
    loadSession().then(setSession, setError);
  }, []);

  const pages = session?.kind === 'admin' ? consolePages : accountPages;
  const home = session?.kind === 'admin' ? consoleHome : '/';
  let content;
  if (path === '/login' && !session) {
    content = (
      <LoginPage
        onLogin={(next) => {
          setSession(next);
          navigate(next.kind === 'admin' ? consoleHome : '/', { replace: true });
        }}
      />
    );
  } else if (path === '/join' && session !== undefined && error === undefined) {
    // An invitation link: for a visitor (who joins with a password) and a signed-in user alike.
    content = (
      <JoinPage
        session={session}
        onSession={(next) => {
          setSession(next);
          navigate('/', { replace: true });
        }}
      />
    );
  } else if (publicPage) {
    const Page = publicPage.page.component;
    content = <Page key={publicPage.page.path} params={publicPage.params} />;
  } else if (error !== undefined) content = <ErrorMessage error={error} />;
  else if (session === undefined) content = <Loading />;
  else if (session === null) content = <SignedOutPage />;
  else {
    const found = findPage(pages, path === '/login' ? home : path);
    if (!found) content = <NotFoundPage home={home} />;
    else {
      const Page = found.page.component;
      content = <Page key={found.page.path} params={found.params} />;
    }
  }
  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <header class="banner">
        <div class="brand">{t('app.name')}</div>
        {session && <Navigation pages={pages} current={path} />}
        <div class="session">
          {session && <span class="who">{session.kind === 'admin' ? t('app.operator') : session.account?.name}</span>}
          {session?.user && <Link to="/profile">{t('password.profile.title')}</Link>}
          <LanguageSwitch />
          {session && (
            <button
              type="button"
              onClick={async () => {
                try {
                  await logOut();
                } finally {
                  setSession(null);
                  navigate('/', { replace: true });
                }
              }}
            >
              {t('app.logout')}
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <SessionContext.Provider value={{ session: session ?? null, replace: setSession }}>{content}</SessionContext.Provider>
      </main>
      <footer class="footer">
        <p class="muted small">{t('app.footer')}</p>
      </footer>
    </>
  );
}

function Navigation(props: { pages: readonly PageDefinition[]; current: string }) {
  const { t } = useI18n();
  const listed = props.pages.filter((page) => page.nav);
  // A page reached from another (an account from the accounts) marks the nearest listed page above it.
  const listedItself = listed.some((page) => page.path === props.current);
  const section = listedItself
    ? undefined
    : listed
        .filter((page) => page.path !== '/' && props.current.startsWith(`${page.path}/`))
        .reduce<string | undefined>((longest, page) => (longest === undefined || page.path.length > longest.length ? page.path : longest), undefined);
  return (
    <nav aria-label={t('app.navigation')}>
      <ul>
        {listed.map((page) => (
          <li key={page.path}>
            <Link to={page.path} current={page.path === props.current ? 'page' : page.path === section ? 'true' : undefined}>
              {t(page.title)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function LanguageSwitch() {
  const { t, language, setLanguage } = useI18n();
  return (
    <label class="language">
      <span class="visually-hidden">{t('app.language')}</span>
      <select value={language} onChange={(event) => setLanguage(event.currentTarget.value as Language)}>
        {languages.map((candidate) => (
          <option key={candidate} value={candidate}>
            {candidate === 'ru' ? 'Русский' : 'English'}
          </option>
        ))}
      </select>
    </label>
  );
}
