/**
 * What the console learns from the process serving it (`GET /console/settings.json`), before any sign-in.
 * Shared by the server (src/routes/console.routes.ts) and the console (console/src/settings.ts), so it has no imports.
 */
export interface ConsoleSettings {
  /** `npm start` with its dev key: the console offers "use the dev admin token" (fetched from /console/dev-token). */
  devToken: boolean;
  /** Prefix of scope names in tokens (AUTH_SCOPE_PREFIX), to read what a token may do. */
  scopePrefix: string;
  /** Claim holding a user's groups (AUTH_GROUPS_CLAIM). */
  groupsClaim: string;
  /**
   * OpenID Connect sign-in (CONSOLE_OIDC_*): the issuer (its discovery document is read by the browser), the console's
   * public client id, the scopes to ask for, and the API's audience as the `resource` to ask a token for.
   */
  oidc?: { issuer: string; clientId: string; scope: string; resource?: string };
}
