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
}
