import { existsSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

/** Debian's chromium (scripts/setup-browser.sh installs it); no browser build can be downloaded here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Starts the system Chromium headless. A missing browser fails the suite (CI=true or not): it never skips. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run npm run setup:browser (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** The console's build must exist: the suite runs after `npm run build`, and a stale or missing build is a failure. */
export function requireConsoleBuild(): void {
  const index = path.join(__dirname, '..', '..', 'dist', 'console', 'index.html');
  if (!existsSync(index)) throw new Error(`the console is not built (${index} is missing): run npm run build`);
}

/** Serious and critical axe-core violations of the page as it is now, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Gzipped bytes of every script the page loaded, measured on the bodies the server sent (compressed here as a server would). */
export function trackScripts(page: Page): () => Promise<{ files: number; gzipBytes: number; rawBytes: number }> {
  const bodies: Promise<Buffer>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') bodies.push(response.body());
  });
  return async () => {
    const all = await Promise.all(bodies);
    return {
      files: all.length,
      rawBytes: all.reduce((n, b) => n + b.length, 0),
      gzipBytes: all.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0),
    };
  };
}
