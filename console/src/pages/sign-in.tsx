import { useState, type FormEvent } from 'react';
import type { ConsoleSettings } from '../../../src/console-settings';
import { fetchDevToken } from '../settings';
import { startOidcSignIn } from '../oidc';
import { ErrorMessage } from '../components/query-view';

/** Sign-in in place of the page asked for: after it, the same URL shows that page. */
export function SignIn({
  settings,
  onSignIn,
  expired,
  invalid,
  oidcError,
}: {
  settings: ConsoleSettings;
  onSignIn: (token: string) => void;
  expired: boolean;
  invalid: boolean;
  oidcError?: unknown;
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim()) onSignIn(token.trim());
  };
  const useDevToken = async () => {
    try {
      onSignIn(await fetchDevToken());
    } catch (err) {
      setError(err);
    }
  };
  return (
    <main className="sign-in">
      <h1>Sign in to the Model Orchestration console</h1>
      {expired && (
        <p role="alert" className="error">
          Your sign-in is no longer accepted (expired or revoked). Sign in again to go on where you were.
        </p>
      )}
      {invalid && (
        <p role="alert" className="error">
          That is not a token the console can read (a JWT).
        </p>
      )}
      {settings.oidc && (
        <p>
          <button type="button" onClick={() => void startOidcSignIn(settings.oidc!).catch(setError)}>
            Sign in with {new URL(settings.oidc.issuer).host}
          </button>
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="token">Access token (a JWT; it stays in this tab and is never put in a URL)</label>
        <textarea id="token" rows={4} value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" spellCheck={false} />
        <button type="submit" disabled={!token.trim()}>
          Sign in
        </button>
      </form>
      {settings.devToken && (
        <p>
          <button type="button" onClick={() => void useDevToken()}>
            Use the dev admin token
          </button>{' '}
          (offered by <code>npm start</code> only)
        </p>
      )}
      <ErrorMessage error={error ?? oidcError} />
    </main>
  );
}
