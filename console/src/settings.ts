import type { ConsoleSettings } from '../../src/console-settings';

/** The serving process's settings for the console (not an API call: it comes with the page, before sign-in). */
export async function loadSettings(): Promise<ConsoleSettings> {
  const response = await fetch('/console/settings.json');
  if (!response.ok) throw new Error(`the console's settings did not load (${response.status})`);
  return (await response.json()) as ConsoleSettings;
}

/** `npm start` only: the dev admin token, which the server hands to browsers on its own machine. */
export async function fetchDevToken(): Promise<string> {
  const response = await fetch('/console/dev-token', { cache: 'no-store' });
  if (!response.ok) throw new Error('the dev admin token is offered only by npm start, to a browser on the same machine');
  return ((await response.json()) as { token: string }).token;
}
