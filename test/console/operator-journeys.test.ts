import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Harness, uid } from '../helpers/harness';
import { activeModel, addVersion, eventually, initService, tenantWithDomain, FEATURES } from '../helpers/fixtures';
import { launchBrowser, requireConsoleBuild, seriousViolations } from './browser';

// The operator's journeys through the console in a real browser against the real app: the defects an operator met
// (a tenant overwritten, the default model, errors, the not-found page, sign-in per tab, pages that never refreshed)
// and the pages of rollouts and schedules.
const UI_WAIT = 30_000;
const STORED_TOKEN = "sessionStorage.getItem('mos-console-token')";
const MANUAL_HANDLERS = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'manual' } };

describe('operator console journeys', () => {
  let h: Harness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    requireConsoleBuild();
    [h, browser] = await Promise.all([Harness.start({ worker: true, consoleDevToken: true }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });
  beforeEach(async () => {
    context = await browser.newContext({ baseURL: h.baseUrl });
    context.setDefaultTimeout(UI_WAIT);
    page = await context.newPage();
  });
  afterEach(() => context.close());

  async function signInWithDevToken(consolePath = '/') {
    await page.goto(`/console${consolePath}`);
    await page.getByRole('button', { name: 'Use the dev admin token' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }
  async function expectAccessible(what: string) {
    await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
    expect((await seriousViolations(page)).map((v) => `${what}: ${v}`)).toEqual([]);
  }

  it('asks before a new tenant replaces one that exists, and replaces it only when told to', async () => {
    const clientId = uid('client');
    expect((await h.api('PUT', `/v2/clients/${clientId}`, { body: { name: 'Original' } })).status).toBe(201);
    await signInWithDevToken('/tenants');
    await page.getByLabel('Tenant id').fill(clientId);
    await page.getByLabel('Name').fill('Dup');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByText(`Tenant ${clientId} exists already (name “Original”). Nothing was changed.`).waitFor();
    expect((await h.api('GET', `/v2/clients/${clientId}`)).body.name).toBe('Original');
    await page.getByRole('button', { name: `Replace the name of ${clientId} with “Dup”` }).click();
    await page.getByText(`Tenant ${clientId} existed and was updated.`).waitFor();
    expect((await h.api('GET', `/v2/clients/${clientId}`)).body.name).toBe('Dup');

    const fresh = uid('client');
    await page.getByLabel('Tenant id').fill(fresh);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByText(`Tenant ${fresh} created.`).waitFor();
  });

  it("shows each domain's default model as in force", async () => {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    await signInWithDevToken(`/tenants/${t.clientId}`);
    const row = page.getByRole('row', { name: new RegExp(t.domainId) });
    await row.getByRole('cell', { name: `${modelId} v1`, exact: true }).waitFor();
  });

  it('says once that a domain is missing and offers nothing that cannot work', async () => {
    const t = await tenantWithDomain(h);
    await signInWithDevToken(`/tenants/${t.clientId}/domains/nosuch`);
    await page.getByRole('alert').first().waitFor();
    expect(await page.getByRole('alert').allTextContents()).toEqual([expect.stringMatching(/^Not found: .*nosuch/)]);
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
    await page.goto('/console/tenants/nosuch-tenant/domains/nosuch');
    await page.getByRole('alert').first().waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
  });

  it('keeps an error with the action that caused it and clears it when the action is retried', async () => {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    await signInWithDevToken(`/tenants/${t.clientId}/domains/${t.domainId}`);
    const init = page.getByRole('form', { name: 'Initialize a service' });
    await init.getByLabel('Service id').fill('svc-retry');
    await init.getByLabel('Static features (JSON)').fill('{"seats": ');
    await init.getByRole('button', { name: 'Initialize service' }).click();
    await init
      .getByRole('alert')
      .getByText(/Static features is not valid JSON/)
      .waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    await init.getByLabel('Static features (JSON)').fill('{"seats": 3}');
    await init.getByRole('button', { name: 'Initialize service' }).click();
    await init
      .getByRole('status')
      .getByText(/Inference started/)
      .waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('shares the sign-in with a tab opened later, and signs every tab out together', async () => {
    await signInWithDevToken('/');
    const second = await context.newPage();
    await second.goto('/console/jobs');
    await second.getByRole('heading', { name: 'Jobs', exact: true }).waitFor();
    expect(await second.evaluate(STORED_TOKEN)).toMatch(/^ey/);
    expect(second.url()).toBe(`${h.baseUrl}/console/jobs`);
    await second.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: /Sign in/ }).waitFor();
    expect(await page.evaluate(STORED_TOKEN)).toBeNull();
  });

  it('updates a page on its own when a job completes in the background, and says when it last refreshed', async () => {
    const modelId = await activeModel(h, { handlers: MANUAL_HANDLERS });
    const t = await tenantWithDomain(h, { modelId });
    const started = await initService(h, t.base, 'svc-live', { seats: 2 });
    expect(started.status).toBe(202);
    await signInWithDevToken(`/tenants/${t.clientId}/domains/${t.domainId}`);
    const row = page.getByRole('region', { name: 'Services' }).getByRole('row', { name: /svc-live/ });
    await row.getByText('in_progress', { exact: true }).waitFor();
    const refreshed = await page.locator('.refreshed time').getAttribute('datetime');
    const jobId: string = started.body.job_id;
    await eventually(async () => (await h.api('GET', `/v2/jobs/${jobId}`)).body.status === 'running', 20_000, 'job running');
    const done = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, {
      body: { status: 'success', output: { score: 1 } },
    });
    expect(done.status).toBe(200);
    const url = page.url();
    await row.getByText('available', { exact: true }).waitFor();
    expect(page.url()).toBe(url);
    expect(await page.locator('.refreshed time').getAttribute('datetime')).not.toBe(refreshed);
  });

  it('raises a canary from 10 to 50 % and promotes it after its preview', async () => {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    // After the assignment, which takes the newest active version: version 1 stays the primary.
    await addVersion(h, modelId, '2', FEATURES);
    for (const s of ['c-1', 'c-2', 'c-3', 'c-4']) expect((await initService(h, t.base, s, { seats: 5 })).status).toBe(202);
    await signInWithDevToken(`/tenants/${t.clientId}/domains/${t.domainId}`);
    await page.getByLabel('Rollout key').fill('cand-v2');
    await page.getByLabel("Candidate's model").fill(modelId);
    await page.getByLabel("Candidate's version").fill('2');
    await page.getByLabel('Share of the services (%)').fill('10');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByRole('heading', { name: `Canary cand-v2: ${modelId} v2 at 10 % against default` }).waitFor();
    await page.getByText(/^1 of 4 services run the candidate/).waitFor();

    await page.getByLabel('Share of cand-v2 services (%)').fill('50');
    await page.getByRole('button', { name: 'Set share of cand-v2' }).click();
    await page.getByRole('heading', { name: `Canary cand-v2: ${modelId} v2 at 50 % against default` }).waitFor();
    await page.getByText(/^2 of 4 services run the candidate/).waitFor();
    await page.getByRole('table', { name: /^Report of cand-v2/ }).waitFor();
    await expectAccessible('domain with a canary');

    await page.getByRole('button', { name: 'Preview: promote cand-v2' }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText(/^Services that move to the candidate: /).waitFor();
    expect((await h.api('GET', `${t.base}/assignments/default`)).body.model_version).toBe('1');
    await preview.getByRole('button', { name: 'Confirm: promote cand-v2' }).click();
    // The promoted canary leaves the rollouts in force (its "Done" line goes with it at the next refresh, which on a
    // busy machine can come first): the page's lasting answer is the ended rollout, promoted.
    await page.getByRole('cell', { name: 'promoted', exact: true }).waitFor();
    await page.getByText('No canary or shadow in force.').waitFor();
    expect((await h.api('GET', `${t.base}/assignments/default`)).body.model_version).toBe('2');
  });

  it('marks shadow jobs in job lists and rolls a shadow back after a confirmation', async () => {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    // After the assignment, which takes the newest active version: version 1 stays the primary.
    await addVersion(h, modelId, '2', FEATURES);
    await signInWithDevToken(`/tenants/${t.clientId}/domains/${t.domainId}`);
    await page.getByLabel('Rollout key').fill('shadow-v2');
    await page.getByLabel("Candidate's model").fill(modelId);
    await page.getByLabel("Candidate's version").fill('2');
    await page.getByLabel('Role').selectOption('shadow');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByRole('heading', { name: `Shadow shadow-v2: ${modelId} v2 against default` }).waitFor();

    expect((await initService(h, t.base, 'svc-shadowed', { seats: 5 })).status).toBe(202);
    await page.goto(`/console/jobs?client_id=${t.clientId}&trigger=shadow`);
    await page.getByText('shadow (changes nothing)').first().waitFor();

    await page.goto(`/console/tenants/${t.clientId}/domains/${t.domainId}`);
    await page.getByLabel('Reason to roll back shadow-v2').fill('outputs disagree');
    await page.getByRole('button', { name: 'Roll back shadow-v2' }).click();
    await page
      .getByRole('group', { name: /^Archive shadow-v2\?/ })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await page.getByRole('cell', { name: 'rolled back: outputs disagree' }).waitFor();
    await page.getByText('No canary or shadow in force.').waitFor();
    const all = await h.api('GET', `${t.base}/assignments?status=all`);
    expect(all.body.items.find((a: { assignment_key: string }) => a.assignment_key === 'shadow-v2')).toMatchObject({
      status: 'archived',
      status_reason: 'rolled back: outputs disagree',
    });
  });

  it('creates a schedule with its next fires previewed, pauses it with a note, triggers it and backfills a range', async () => {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    expect((await initService(h, t.base, 'svc-sched', { seats: 5 })).status).toBe(202);
    await signInWithDevToken(`/tenants/${t.clientId}/schedules?domain_id=${t.domainId}`);
    await page.getByRole('heading', { name: `Schedules of domain ${t.domainId}` }).waitFor();
    await page.getByLabel('Service id').fill('svc-sched');
    await page.getByLabel('Cron expressions (one per line)').fill('*/30 * * * *');
    await page.getByLabel('Description').fill('half-hourly');
    await page.getByRole('button', { name: 'Preview: create the schedule' }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('list', { name: 'Next fires' }).getByRole('listitem').first().waitFor();
    expect((await h.api('GET', `/v2/clients/${t.clientId}/schedules`)).body.items).toEqual([]);
    await preview.getByRole('button', { name: 'Confirm: create the schedule' }).click();
    await page.getByText('Done: create the schedule.').waitFor();

    await page.getByRole('button', { name: 'half-hourly' }).click();
    await page.getByRole('heading', { name: 'Schedule half-hourly' }).waitFor();
    await expectAccessible('schedules');
    await page.getByLabel('Note (why pause)').fill('maintenance');
    await page.getByRole('button', { name: 'Pause schedule' }).click();
    await page.getByText('Schedule paused.').waitFor();
    const [schedule] = (await h.api('GET', `/v2/clients/${t.clientId}/schedules`)).body.items;
    expect(schedule.state).toEqual({ paused: true, note: 'maintenance' });

    await page.getByRole('button', { name: 'Trigger now' }).click();
    await page.getByText(/^One fire handed to Temporal/).waitFor();
    const runs = page.getByRole('table', { name: 'Recent runs of half-hourly' });
    await runs.getByRole('cell', { name: 'started' }).first().waitFor();

    await page.getByRole('button', { name: 'Backfill', exact: true }).click();
    await page.getByText(/^Backfill of 2 fires/).waitFor();
  });

  it('creates a model and a version, and activates the version after its preview', async () => {
    const modelId = uid('model');
    const statusOf = async (version: string) =>
      (await h.api('GET', `/v2/models/${modelId}/versions`)).body.items.find((v: { version: string }) => v.version === version)?.status;
    await signInWithDevToken('/registry');
    await page.getByLabel('Model id').fill(modelId);
    await page.getByLabel('Model name').fill('Console model');
    await page.getByRole('button', { name: 'Create model' }).click();
    await page.getByRole('status').getByRole('link', { name: modelId }).click();
    await page.getByRole('heading', { name: `Model ${modelId}` }).waitFor();
    await page.getByRole('heading', { name: `Subscriptions of ${modelId}` }).waitFor();
    await expectAccessible('model with the registry writes');

    await page.getByLabel('Version', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByText('Version 2 created (pending).').waitFor();
    await page.getByLabel('Version to change').fill('2');
    await page.getByRole('button', { name: 'Preview: set version 2 active' }).click();
    await page.getByRole('region', { name: 'Preview' }).waitFor();
    expect(await statusOf('2')).toBe('pending');
    await page.getByRole('button', { name: 'Confirm: set version 2 active' }).click();
    await page.getByText('Done: set version 2 active.').waitFor();
    expect(await statusOf('2')).toBe('active');
    await page
      .getByRole('region', { name: 'Versions' })
      .getByRole('row', { name: /^2 active/ })
      .waitFor();
  });

  it('offers the registry writes only to platform callers', async () => {
    const token = await h.idp.human('scoped-admin', [], ['admin']);
    await page.goto('/console/registry');
    await page.getByLabel(/Access token/).fill(token);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create model' }).count()).toBe(0);
  });

  it("creates a subscription whose stored input the target's schema checks, pauses, resumes and deletes it", async () => {
    const target = await activeModel(h, {
      handler_contracts: {
        inference: { input_schema: { type: 'object', properties: { threshold: { type: 'number' } }, required: ['threshold'] } },
      },
    });
    const source = await activeModel(h);
    await signInWithDevToken(`/registry/${source}`);
    const form = page.getByRole('form', { name: 'New subscription' });
    await form.getByLabel('Run the inference of model').fill(target);
    await form.getByLabel('With the input').selectOption('stored');
    await form.getByLabel('Stored input (JSON)').fill('{"threshold": "high"}');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await form.getByRole('alert').waitFor();
    await form.getByLabel('Stored input (JSON)').fill('{"threshold": 0.5}');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await form.getByText(/^Subscription .* created\.$/).waitFor();
    expect(await form.getByRole('alert').count()).toBe(0);

    const row = page.getByRole('region', { name: `Subscriptions of ${source}` }).getByRole('row', { name: new RegExp(target) });
    await row.getByText('active', { exact: true }).waitFor();
    await row.getByRole('button', { name: `Pause subscription to ${target}` }).click();
    await row.getByText('disabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: `Resume subscription to ${target}` }).click();
    await row.getByText('active', { exact: true }).waitFor();
    // Deleting disables it for good and keeps it listed (the API's DELETE).
    await row.getByRole('button', { name: `Delete subscription to ${target}` }).click();
    await row.getByRole('button', { name: 'Confirm' }).click();
    await row.getByText('disabled', { exact: true }).waitFor();
    expect((await h.api('GET', `/v2/models/${source}/event-subscriptions`)).body.items).toMatchObject([{ status: 'disabled' }]);
  });
});
