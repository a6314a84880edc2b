import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Route, Router, Switch } from 'wouter';
import type { ConsoleSettings } from '../../src/console-settings';
import { createConsoleApi } from './api';
import { ApiError } from './errors';
import { callerOf, tokenStore } from './session';
import { CALLBACK_PATH, finishOidcSignIn } from './oidc';
import { SessionContext, type Session } from './session-context';
import { shareSession, type SessionShare } from './session-share';
import { refreshInterval } from './live';
import { Layout } from './components/layout';
import { SignIn } from './pages/sign-in';
import { Overview } from './pages/overview';

// Pages past the first one load when opened, so the first load stays small.
const Registry = lazy(() => import('./pages/registry').then((m) => ({ default: m.Registry })));
const ModelPage = lazy(() => import('./pages/model').then((m) => ({ default: m.ModelPage })));
const Tenants = lazy(() => import('./pages/tenants').then((m) => ({ default: m.Tenants })));
const TenantPage = lazy(() => import('./pages/tenant').then((m) => ({ default: m.TenantPage })));
const DomainPage = lazy(() => import('./pages/domain').then((m) => ({ default: m.DomainPage })));
const Jobs = lazy(() => import('./pages/jobs').then((m) => ({ default: m.Jobs })));
const JobPage = lazy(() => import('./pages/job').then((m) => ({ default: m.JobPage })));
const Schedules = lazy(() => import('./pages/schedules').then((m) => ({ default: m.Schedules })));
const Webhooks = lazy(() => import('./pages/webhooks').then((m) => ({ default: m.Webhooks })));

function newQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        // A 4xx will answer the same again; a network error or a 5xx may not.
        retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
        // Pages read again what they show while open (live.ts), and at once when the tab is shown again.
        refetchInterval: refreshInterval,
        refetchOnWindowFocus: true,
      },
    },
  });
}

export function App({ settings }: { settings: ConsoleSettings }) {
  const [token, setToken] = useState(tokenStore.get());
  const [expired, setExpired] = useState(false);
  const queryClient = useMemo(newQueryClient, []);
  const api = useMemo(
    () =>
      createConsoleApi(
        () => tokenStore.get() ?? '',
        () => {
          // Back to sign-in on the same URL: signing in again shows the page the user was on.
          tokenStore.clear();
          setExpired(true);
          setToken(null);
        },
      ),
    [],
  );
  const share = useRef<SessionShare | null>(null);
  useEffect(() => {
    share.current = shareSession({
      current: () => {
        const held = tokenStore.get();
        const expiresAt = held ? callerOf(held, settings)?.expiresAt : undefined;
        return held && (expiresAt === undefined || expiresAt > Date.now()) ? held : null;
      },
      onToken: (next) => {
        tokenStore.set(next);
        queryClient.clear();
        setExpired(false);
        setToken(next);
      },
      onSignOut: () => {
        tokenStore.clear();
        queryClient.clear();
        setExpired(false);
        setToken(null);
      },
    });
    return () => share.current?.close();
  }, []);
  const [oidcError, setOidcError] = useState<unknown>(null);
  // Back from the identity provider: trade the code for a token once, then show the page the user started from.
  useEffect(() => {
    if (!settings.oidc || window.location.pathname !== CALLBACK_PATH) return;
    finishOidcSignIn(settings.oidc).then((next) => {
      tokenStore.set(next);
      setToken(next);
      share.current?.signedIn(next);
    }, setOidcError);
  }, [settings.oidc]);
  const caller = token ? callerOf(token, settings) : undefined;
  const session: Session | null = useMemo(
    () =>
      caller
        ? {
            api,
            caller,
            settings,
            signOut: () => {
              tokenStore.clear();
              queryClient.clear();
              setExpired(false);
              setToken(null);
              share.current?.signedOut();
            },
          }
        : null,
    [token],
  );

  if (!session) {
    const signIn = (next: string) => {
      tokenStore.set(next);
      queryClient.clear();
      setExpired(false);
      setToken(next);
      share.current?.signedIn(next);
    };
    return <SignIn settings={settings} onSignIn={signIn} expired={expired} invalid={Boolean(token) && !caller} oidcError={oidcError} />;
  }
  return (
    <QueryClientProvider client={queryClient}>
      <SessionContext.Provider value={session}>
        <Router base="/console">
          <Layout>
            <Suspense fallback={<p aria-busy="true">Loading…</p>}>
              <Switch>
                <Route path="/" component={Overview} />
                <Route path="/registry" component={Registry} />
                <Route path="/registry/:modelId" component={ModelPage} />
                <Route path="/tenants" component={Tenants} />
                <Route path="/tenants/:clientId" component={TenantPage} />
                <Route path="/tenants/:clientId/schedules" component={Schedules} />
                <Route path="/tenants/:clientId/domains/:domainId" component={DomainPage} />
                <Route path="/jobs" component={Jobs} />
                <Route path="/jobs/:jobId" component={JobPage} />
                <Route path="/webhooks" component={Webhooks} />
                <Route>
                  <h1>Page not found</h1>
                  <p>There is no console page at this address.</p>
                </Route>
              </Switch>
            </Suspense>
          </Layout>
        </Router>
      </SessionContext.Provider>
    </QueryClientProvider>
  );
}
