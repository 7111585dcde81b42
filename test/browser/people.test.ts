// People in the console, in headless Chromium against the real service: an owner invited by the
// CLI accepts the link and signs in with a password, switches between two organizations, invites
// a colleague as finance (who sees margins but no admin pages, whose admin requests answer 403,
// and who resets a forgotten password), changes a role and reads it in the audit trail, creates
// and revokes an API key, creates a budget, adds and deletes a webhook endpoint, re-prices a range,
// adds and corrects a rate card, sees the revenue connections, sets up single sign-on, revokes an
// invitation and removes a member; a third person signs in through SSO at a real OpenID provider
// on loopback; 300 page views by one person meet no 429. Screenshots go to test-results/people/.
import Big from 'big.js';
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { money } from '../../console/src/format/money.js';
import { fromRoot, projectRoot } from '../../core/paths.js';
import { chromiumAvailable, launchChromium, type LaunchedBrowser } from '../support/chromium.js';
import { admin } from '../support/http.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../support/openid-provider.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

const run = promisify(execFile);
const SHOTS = fromRoot('test-results', 'people');
const DAY = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY) * DAY);
const isoDay = (daysAgo: number) => new Date(today.getTime() - daysAgo * DAY).toISOString().slice(0, 10);
const LAST_7 = { start_date: isoDay(6), end_date: isoDay(-1) };
const suffix = crypto.randomBytes(4).toString('hex');
const domain = `people-${suffix}.example`;
const OWNER = `olga@${domain}`;
const FINANCE = `fred@${domain}`;
const SSO_PERSON = `sam@${domain}`;
const PASSWORD = 'a long passphrase of olga';
const FINANCE_PASSWORD = 'fred keeps the ledger';
const FINANCE_NEW_PASSWORD = 'fred found a new passphrase';

let p: Pipeline;
let acme: Tenant;
let beta: Tenant;
let idp: TestOpenIdProvider;
/** Where the password-reset sender delivers links (its webhook). */
let mailbox: WebhookReceiver;
let browser: LaunchedBrowser;
let page: Page;
/** Every /v1 request the page made (with the organization it named), and every answer, in order. */
const requests: { url: string; organization: string | null }[] = [];
const answers: { url: string; status: number }[] = [];

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function open(pathAndQuery: string): Promise<void> {
  await page.goto(`${p.url}${pathAndQuery}`);
}

/** `npm run cli -- users invite …`, as the first owner of an organization is invited. */
async function cliInvite(organizationId: string, email: string, role: string): Promise<{ token: string; url: string }> {
  const env = { ...process.env, MARGINAL_URL: p.url, MARGINAL_ADMIN_TOKEN: p.host.adminToken };
  const { stdout } = await run(
    'npm',
    ['run', '--silent', 'cli', '--', 'users', 'invite', '--org', organizationId, '--email', email, '--role', role],
    {
      cwd: projectRoot,
      env,
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

async function acceptInBrowser(url: string, password: string): Promise<void> {
  await page.goto(url);
  await page.fill('input[name="new-password"]', password);
  await page.fill('input[name="repeat-password"]', password);
  await page.click('[data-form="accept-invitation"] button[type="submit"]');
}

async function signIn(email: string, password: string): Promise<void> {
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await page.click('[data-form="person"] button[type="submit"]');
}

async function signedInAs(email: string): Promise<void> {
  await page.locator(`[data-who="${email}"]`).waitFor({ timeout: 20_000 });
}

async function signOut(): Promise<void> {
  await page.click('.who button:has-text("Sign out")');
  await page.locator('[data-form="person"]').waitFor();
}

async function navLabels(): Promise<string[]> {
  return page.locator('nav a').allTextContents();
}

/** A request made by the page itself, with its cookie and the CSRF token the session answers. */
async function fromPage(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ method, urlPath, body }) => {
      const session = (await (await fetch('/v1/auth/session')).json()) as { csrf_token: string };
      const res = await fetch(urlPath, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf_token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    { method, urlPath, body },
  );
}

async function kpi(id: string): Promise<string> {
  const loc = page.locator(`[data-kpi="${id}"] [data-value]`);
  await expect.poll(async () => (await loc.textContent()) ?? '…', { timeout: 20_000 }).not.toMatch(/…/);
  return (await loc.textContent())!;
}

const runIf = chromiumAvailable() || process.env.CI ? describe : describe.skip;

runIf('people in the console (headless Chromium)', () => {
  beforeAll(async () => {
    execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
      cwd: fromRoot(),
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    mailbox = await new WebhookReceiver().start();
    p = await startPipeline({
      env: { PASSWORD_RESET_WEBHOOK_URL: mailbox.url, PASSWORD_RESET_WEBHOOK_SECRET: 'whsec_people_console' },
    });
    acme = await createTenant(p, { name: 'Acme' });
    beta = await createTenant(p, { name: 'Beta' });
    // Three events of $1.25 (cost given) yesterday and a $100 invoice wholly inside the last 7 days:
    // margin 100 − 3.75 = 96.25.
    const events = [0, 1, 2].map((i) =>
      llmEvent(`people-${i}`, {
        user_id: 'alice',
        model: 'claude-x',
        provider: 'anthropic',
        cost_override: '1.25',
        timestamp: new Date(today.getTime() - DAY + (9 + i) * 3_600_000).toISOString(),
      }),
    );
    await ingest(p, acme, events);
    const revenue = await admin(p.host, 'POST', `/organizations/${acme.organizationId}/revenue-records`, {
      records: [
        { id: 'inv-alice', user_id: 'alice', customer_name: 'Alice Ltd', amount: '100', period_start: isoDay(4), period_end: isoDay(2) },
      ],
    });
    expect(revenue.status).toBe(200);
    await waitForLake(p, acme.organizationId, events.length);
    idp = await startOpenIdProvider(`${p.url}/v1/auth/sso/callback`);
    browser = await launchChromium();
    page = await browser.context.newPage();
    const api = (url: string) => new URL(url).pathname.startsWith('/v1/');
    page.on('request', (req: Request) => {
      if (api(req.url())) requests.push({ url: req.url(), organization: req.headers()['x-organization-id'] ?? null });
    });
    page.on('response', (res: Response) => {
      if (api(res.url())) answers.push({ url: res.url(), status: res.status() });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
    await p?.stop();
    await mailbox?.stop();
  });

  it('an owner invited by the CLI accepts the link, lands signed in; a wrong password shows the API message', async () => {
    const invitation = await cliInvite(acme.organizationId, OWNER, 'owner');
    expect(invitation.url).toBe(`${p.url}/#/accept-invitation?token=${invitation.token}`);
    await acceptInBrowser(invitation.url, PASSWORD);
    await signedInAs(OWNER);
    expect(page.url()).not.toContain(invitation.token);
    expect(await page.locator('[data-role]').textContent()).toBe('owner');
    expect(await navLabels()).toContain('Members');

    await signOut();
    await signIn(OWNER, 'not the password at all');
    await expect.poll(() => page.locator('[role="alert"]').textContent()).toBe('Wrong email or password');
    await shot('sign-in-refused');
    await signIn(OWNER, PASSWORD);
    await signedInAs(OWNER);
    // No secret in the page's storage: the cookie is httpOnly, the CSRF token in memory only.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('localStorage.length')).toBe(0);
  });

  it('the overview shows the margin exactly as the API computes it', async () => {
    await open('/?range=last-7-days');
    const margin = (await apiGet(p, acme.readKey, '/margin-data/summary', LAST_7)).body;
    expect(new Big(margin.total_revenue).eq(100)).toBe(true);
    expect(new Big(margin.margin_amount).eq('96.25')).toBe(true);
    expect(await kpi('margin')).toBe('$96.25');
    expect(await kpi('revenue')).toBe('$100.00');
    await shot('owner-overview');
  });

  it('a person in two organizations switches between them; each request names the one picked', async () => {
    const second = await cliInvite(beta.organizationId, OWNER, 'admin');
    const accepted = await fetch(`${p.url}/v1/auth/invitations/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: second.token, password: PASSWORD }),
    });
    expect(accepted.status).toBe(201);
    // The session holds the memberships it was opened with: sign in again to see the second one.
    await signOut();
    await signIn(OWNER, PASSWORD);
    await signedInAs(OWNER);
    const switcher = page.locator('select[aria-label="Organization"]');
    expect(await switcher.locator('option').allTextContents()).toEqual(expect.arrayContaining(['Acme (owner)', 'Beta (admin)']));
    await open('/?range=last-7-days');
    await kpi('cost');
    const from = requests.length;
    await switcher.selectOption(beta.organizationId);
    await expect.poll(() => page.locator('[data-role]').textContent()).toBe('admin');
    const betaCost = await kpi('cost');
    // A reload keeps the tab's choice.
    await page.reload();
    const reloadedCost = await kpi('cost');
    await shot('organization-switched');
    const afterSwitch = requests.slice(from).filter((r) => !r.url.includes('/auth/'));
    await switcher.selectOption(acme.organizationId);
    await expect.poll(() => page.locator('[data-role]').textContent()).toBe('owner');
    expect(await kpi('margin')).toBe('$96.25');
    expect([betaCost, reloadedCost]).toEqual(['$0.00', '$0.00']);
    expect(afterSwitch.length).toBeGreaterThan(0);
    expect(afterSwitch.filter((r) => r.organization !== beta.organizationId)).toEqual([]);
  });

  let financeLink = '';

  it('the owner invites a colleague as finance: the link is shown once; a bad email shows the API message', async () => {
    await open('/members');
    expect(await page.locator('[data-role]').textContent()).toBe('owner');
    await page.locator(`[data-table="members"] tr[data-row="${OWNER}"]`).waitFor();
    await page.fill('input[name="invite-email"]', 'fred@');
    await page.selectOption('select[name="invite-role"]', 'finance');
    // The browser's own check would stop "fred@"; the API's answer is the one to show.
    await page.evaluate(`document.querySelector('[data-form="invite"]').setAttribute('novalidate', '')`);
    await page.click('[data-form="invite"] button[type="submit"]');
    const refusal = page.locator('[data-page="members"] [role="alert"][data-field="email"]');
    await expect.poll(() => refusal.textContent()).toMatch(/^email: /);
    await shot('members-invite-refused');
    await page.fill('input[name="invite-email"]', FINANCE);
    await page.click('[data-form="invite"] button[type="submit"]');
    const link = page.locator('input[aria-label="Invitation link"]');
    await link.waitFor();
    financeLink = await link.inputValue();
    expect(financeLink).toMatch(new RegExp(`^${p.url}/#/accept-invitation\\?token=[A-Za-z0-9_-]{43}$`));
    await shot('members-invited');
    // Shown once: a fresh visit to the page does not show it again.
    await page.reload();
    await page.locator(`[data-table="members"] tr[data-row="${OWNER}"]`).waitFor();
    expect(await page.locator('input[aria-label="Invitation link"]').count()).toBe(0);
  });

  it('the finance colleague sees margins but no admin page; the server answers their admin requests 403', async () => {
    await signOut();
    await acceptInBrowser(financeLink, FINANCE_PASSWORD);
    await signedInAs(FINANCE);
    expect(await page.locator('[data-role]').textContent()).toBe('finance');
    const nav = await navLabels();
    expect(nav).not.toContain('Members');
    expect(nav).not.toContain('Audit trail');
    expect(nav).not.toContain('Events');
    expect(nav).toContain('Customers');
    await open('/?range=last-7-days');
    expect(await kpi('margin')).toBe('$96.25');
    await shot('finance-overview');

    await open('/members');
    const note = page.locator('[data-page="members"] .missing-scope');
    await expect.poll(() => note.textContent(), { timeout: 20_000 }).toContain('organization:admin');
    expect(await note.textContent()).toContain('(finance)');
    await shot('finance-members-403');
    const members = await fromPage('GET', '/v1/members');
    expect(members.status).toBe(403);
    expect(members.body.error.details.requiredScope).toBe('organization:admin');
    expect((await fromPage('GET', '/v1/audit-events')).status).toBe(403);
    const escalate = await fromPage('POST', '/v1/members/invitations', { email: `mallory@${domain}`, role: 'owner' });
    expect(escalate.status).toBe(403);
    expect((await fromPage('GET', `/v1/admin/organizations/${acme.organizationId}/api-keys`)).status).toBe(403);
  });

  it('the colleague forgets the password: asks for a link, sets a new password there, signs in with it', async () => {
    await signOut();
    await page.fill('input[name="email"]', FINANCE);
    await page.click('[data-action="forgot"]');
    await page.locator('[data-reset-requested]').waitFor();
    await shot('password-reset-requested');
    let link: { url: string; token: string } | undefined;
    await expect
      .poll(() => (link = mailbox.received.map((r) => JSON.parse(r.body)).find((b) => b.email === FINANCE)), { timeout: 20_000 })
      .toBeDefined();
    await page.goto(`${p.url}/#/reset-password?token=${link!.token}`);
    await page.fill('input[name="new-password"]', 'short');
    await page.fill('input[name="repeat-password"]', 'short');
    await page.click('[data-form="reset-password"] button[type="submit"]');
    // The API's rule and message, naming the field.
    await expect.poll(() => page.locator('[role="alert"][data-field="password"]').textContent()).toMatch(/^password: /);
    await page.fill('input[name="new-password"]', FINANCE_NEW_PASSWORD);
    await page.fill('input[name="repeat-password"]', FINANCE_NEW_PASSWORD);
    await page.click('[data-form="reset-password"] button[type="submit"]');
    await page.locator('[data-form="password-set"]').waitFor();
    expect(page.url()).not.toContain(link!.token);
    await page.click('[data-form="password-set"] button');
    await signIn(FINANCE, FINANCE_PASSWORD);
    await expect.poll(() => page.locator('[role="alert"]').textContent()).toBe('Wrong email or password');
    await signIn(FINANCE, FINANCE_NEW_PASSWORD);
    await signedInAs(FINANCE);
  });

  it('the owner changes the colleague to viewer; the audit trail shows who did what', async () => {
    await signOut();
    await signIn(OWNER, PASSWORD);
    await signedInAs(OWNER);
    await open('/members');
    const role = page.locator(`select[aria-label="Role of ${FINANCE}"]`);
    await role.waitFor();
    // The last owner cannot be made anything else: the option is offered disabled.
    expect(await page.locator(`select[aria-label="Role of ${OWNER}"] option[value="viewer"]`).isDisabled()).toBe(true);
    // Another tab signs the owner in again: the browser's cookie is now a new session with another
    // CSRF token; the change below still goes through (the console asks the token again once).
    const again = await page.evaluate(
      async (body) => (await fetch('/v1/auth/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).status,
      JSON.stringify({ email: OWNER, password: PASSWORD }),
    );
    expect(again).toBe(200);
    await role.selectOption('viewer');
    await expect.poll(() => role.inputValue()).toBe('viewer');
    await shot('members');

    await open('/audit?range=last-7-days');
    await page.locator('[data-table="audit-events"] tbody tr').first().waitFor();
    await page.fill('input[name="action"]', 'member.role_changed');
    const rows = page.locator('[data-table="audit-events"] tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator('td[data-col="actor"]').textContent()).toBe(OWNER);
    expect(await rows.locator('td[data-col="subject"]').textContent()).toBe(FINANCE);
    const details = JSON.parse((await rows.locator('td[data-col="details"]').textContent())!);
    expect(details).toMatchObject({ before: { role: 'finance' }, after: { role: 'viewer' } });
    // The owner's wrong password and the colleague's old one.
    await page.fill('input[name="action"]', 'sign_in.failed');
    await expect.poll(() => rows.count()).toBe(2);
    await page.fill('input[name="action"]', '');
    // Done by or to the colleague (the invitation was made before they were a person: not theirs).
    await page.selectOption('select[name="person_id"]', { label: FINANCE });
    await expect
      .poll(async () => [...new Set(await rows.locator('td[data-col="action"]').allTextContents())].sort())
      .toEqual([
        'invitation.accepted',
        'member.role_changed',
        'password_reset.completed',
        'password_reset.requested',
        'sign_in',
        'sign_in.failed',
        'sign_out',
      ]);
    await shot('audit-trail');
  });

  it('the owner creates an API key (shown once) that works, revokes it, and the audit trail names the owner', async () => {
    await open('/api-keys');
    await page.locator('[data-table="api-keys"]').waitFor();
    // No scope ticked: the API's refusal, naming the field.
    await page.click('[data-form="create-key"] button[type="submit"]');
    await expect.poll(() => page.locator('[data-page="api-keys"] [role="alert"]').getAttribute('data-field')).toBe('scopes');
    await page.check('[data-form="create-key"] input[name="costs:read"]');
    await page.click('[data-form="create-key"] button[type="submit"]');
    const shown = page.locator('input[aria-label="API key"]');
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^mk_live_/);
    const prefix = (await page.locator('[data-shown-once]').getAttribute('data-shown-once'))!;
    expect((await apiGet(p, key, '/ping')).status).toBe(200);
    await shot('api-key-created');
    const row = page.locator(`[data-table="api-keys"] tr[data-row="${prefix}"]`);
    await row.locator('button:has-text("Revoke")').click();
    await row.locator('button.danger').click();
    await expect.poll(() => row.locator('td[data-col="status"]').textContent()).toMatch(/^revoked /);
    expect((await apiGet(p, key, '/ping')).status).toBe(401);
    await page.reload();
    expect(await page.locator('input[aria-label="API key"]').count()).toBe(0);
    await shot('api-keys');

    await open('/audit?range=last-7-days');
    await page.fill('input[name="action"]', 'api_key.revoked');
    const rows = page.locator('[data-table="audit-events"] tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator('td[data-col="actor"]').textContent()).toBe(OWNER);
    expect(await rows.locator('td[data-col="details"]').textContent()).not.toContain(key);
  });

  it('the owner creates a budget: its spend is the API figure, shown exactly; a bad amount shows the API message', async () => {
    await open('/budgets');
    await page.locator('[data-table="budgets"]').waitFor();
    await page.fill('input[name="budget-name"]', 'Acme monthly');
    await page.selectOption('select[name="budget-period"]', 'monthly');
    await page.fill('input[name="budget-amount"]', 'ten dollars');
    await page.click('[data-form="create-budget"] button[type="submit"]');
    await expect.poll(() => page.locator('[data-page="budgets"] [role="alert"]').getAttribute('data-field')).toBe('amount');
    await page.fill('input[name="budget-amount"]', '10.5');
    await page.click('[data-form="create-budget"] button[type="submit"]');
    const row = (col: string) => page.locator(`[data-table="budgets"] tr[data-row="Acme monthly"] td[data-col="${col}"]`);
    await row('amount').waitFor();
    const api = (await admin(p.host, 'GET', `/organizations/${acme.organizationId}/budgets`)).body.budgets.find(
      (b: any) => b.name === 'Acme monthly',
    );
    expect(api.amount).toBe('10.5');
    expect(new Big(api.spent).plus(api.remaining).eq('10.5')).toBe(true);
    expect(await row('amount').textContent()).toBe('$10.50');
    // The console's one money rule (unit-tested with worked examples) over the API's own strings.
    expect(await row('spent').textContent()).toBe(money(api.spent));
    expect(await row('remaining').textContent()).toBe(money(api.remaining));
    await shot('budgets');
  });

  it('the owner adds a webhook endpoint (secret shown once) and deletes it; a bad URL shows the API message', async () => {
    await open('/webhooks');
    await page.locator('[data-table="webhook-endpoints"]').waitFor();
    await page.fill('input[name="endpoint-url"]', 'ftp://hooks.example.com/marginal');
    await page.click('[data-form="create-endpoint"] button[type="submit"]');
    await expect.poll(() => page.locator('[data-page="webhooks"] [role="alert"]').getAttribute('data-field')).toBe('url');
    const url = 'https://hooks.example.com/marginal';
    await page.fill('input[name="endpoint-url"]', url);
    await page.fill('input[name="endpoint-events"]', 'budget.exceeded, budget.threshold_crossed');
    await page.click('[data-form="create-endpoint"] button[type="submit"]');
    const secret = page.locator('input[aria-label="Signing secret"]');
    await secret.waitFor();
    expect(await secret.inputValue()).toMatch(/^whsec_/);
    const row = page.locator(`[data-table="webhook-endpoints"] tr[data-row="${url}"]`);
    expect(await row.locator('td[data-col="events"]').textContent()).toBe('budget.exceeded budget.threshold_crossed');
    await shot('webhooks');
    await row.locator('button:has-text("Delete")').click();
    await row.locator('button.danger').click();
    await expect.poll(() => row.count()).toBe(0);
    const listed = await admin(p.host, 'GET', `/organizations/${acme.organizationId}/webhook-endpoints`);
    expect(listed.body.webhook_endpoints).toEqual([]);
  });

  it('the owner re-prices the last 7 days: progress, then cost before and after as the API answers them', async () => {
    await open('/repricings');
    await page.locator('[data-table="repricings"]').waitFor();
    await page.fill('input[name="repricing-from"]', isoDay(0));
    await page.fill('input[name="repricing-until"]', isoDay(6));
    await page.click('[data-form="start-repricing"] button[type="submit"]');
    await expect.poll(() => page.locator('[data-page="repricings"] [role="alert"]').getAttribute('data-field')).toBe('start_date');
    await page.fill('input[name="repricing-from"]', isoDay(6));
    await page.fill('input[name="repricing-until"]', isoDay(-1));
    await page.click('[data-form="start-repricing"] button[type="submit"]');
    const rows = page.locator('[data-table="repricings"] tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    // The page asks again while it runs; the three $1.25 events keep their given cost.
    await expect.poll(() => rows.locator('td[data-col="status"]').textContent(), { timeout: 60_000 }).toBe('completed');
    const job = (await admin(p.host, 'GET', `/organizations/${acme.organizationId}/repricings`)).body.repricings[0];
    expect([job.events_repriced, new Big(job.cost_before).eq('3.75'), new Big(job.cost_change).eq(0)]).toEqual([3, true, true]);
    expect(await rows.locator('td[data-col="before"]').textContent()).toBe(money(job.cost_before));
    expect(await rows.locator('td[data-col="after"]').textContent()).toBe(money(job.cost_after));
    expect(await rows.locator('td[data-col="change"]').textContent()).toBe(money(job.cost_change));
    expect(await rows.locator('td[data-col="events"]').textContent()).toBe('3');
    await shot('repricings');
  });

  it('the owner adds a rate card, corrects it (the earlier kept as history) and re-prices the range it changes', async () => {
    await open('/rate-cards');
    await page.locator('[data-page="rate-cards"] [data-table="rate-cards"]').waitFor();
    const save = async (input: string, output: string) => {
      await page.fill('input[name="card-model"]', 'people-model');
      await page.fill('input[name="input_cost_per_million"]', input);
      await page.fill('input[name="output_cost_per_million"]', output);
      await page.click('[data-form="rate-card"] button[type="submit"]');
    };
    await save('2.5', 'ten');
    await expect
      .poll(() => page.locator('[data-form="rate-card"] ~ [role="alert"]').getAttribute('data-field'))
      .toBe('output_cost_per_million');
    await save('2.5', '10');
    const written = page.locator('[data-card-written]');
    await expect.poll(() => written.textContent()).toMatch(/^Added\./);
    await save('2.125', '10');
    await expect.poll(() => written.textContent()).toMatch(/^Corrected: /);
    const cards = (await admin(p.host, 'GET', `/organizations/${acme.organizationId}/rate-cards?include_superseded=true`)).body
      .rate_cards as any[];
    const mine = cards.filter((c) => c.model_slug === 'people-model');
    expect(mine.map((c) => [c.input_cost_per_million, c.superseded_at === null])).toEqual([
      ['2.5', false],
      ['2.125', true],
    ]);
    const current = mine.find((c) => c.superseded_at === null);
    // Every digit the API sent: $2.125, not $2.13.
    expect(
      await page
        .locator(`[data-table="rate-cards"] tr[data-row="${current.rate_card_id}"] td[data-col="input_cost_per_million"]`)
        .textContent(),
    ).toBe('$2.125');
    await page.click('[data-card-written] button');
    await expect.poll(() => page.locator('[data-card-written] button').textContent()).toContain('Re-pricing started');
    await page.check('[data-page="rate-cards"] .card-head input[type="checkbox"]');
    await expect.poll(() => page.locator('[data-table="rate-cards"] tbody tr').count()).toBe(2);
    await shot('rate-cards');
  });

  it('the owner sees the revenue connections; a key Stripe would never take is refused with the API message', async () => {
    await open('/revenue');
    const imported = page.locator('[data-table="revenue-connections"] tr[data-row="import"]');
    await imported.waitFor();
    expect(await imported.locator('td[data-col="status"]').textContent()).toBe('active');
    await page.fill('input[name="stripe-key"]', 'pk_live_a_publishable_key');
    await page.click('[data-form="connect-stripe"] button[type="submit"]');
    const refusal = page.locator('[data-section="stripe"] [role="alert"]');
    await expect.poll(() => refusal.getAttribute('data-field')).toBe('secret_key');
    expect(await refusal.textContent()).toMatch(/^secret_key: /);
    await shot('revenue');
  });

  it('the owner sets up single sign-on on the members page; a wrong field shows the API message', async () => {
    await open('/members');
    await page.locator('[data-sso-missing]').waitFor();
    await page.fill('input[name="sso-issuer"]', 'http://idp.example.com');
    await page.fill('input[name="sso-client-id"]', idp.clientId);
    await page.fill('input[name="sso-client-secret"]', idp.clientSecret);
    await page.fill('input[name="sso-domains"]', domain);
    await page.selectOption('select[name="sso-role"]', 'analyst');
    await page.click('[data-form="sso"] button[type="submit"]');
    // http only on a loopback host: the API's rule, shown with its field.
    await expect.poll(() => page.locator('[data-section="sso"] [role="alert"]').getAttribute('data-field')).toBe('issuer');
    await page.fill('input[name="sso-issuer"]', idp.issuer);
    await page.fill('input[name="sso-client-secret"]', idp.clientSecret);
    await page.click('[data-form="sso"] button[type="submit"]');
    const facts = page.locator('[data-sso-configured]');
    await expect.poll(() => facts.textContent()).toContain(`${p.url}/v1/auth/sso/callback`);
    expect(await facts.textContent()).toContain('analyst');
    // The secret is never shown back, and the field is emptied.
    expect(await page.content()).not.toContain(idp.clientSecret);
    expect(await page.inputValue('input[name="sso-client-secret"]')).toBe('');
    await shot('members-sso');
  });

  it('a third person signs in through SSO at the local OpenID provider with the configured role', async () => {
    await signOut();
    await page.fill('input[name="email"]', `nobody@elsewhere-${suffix}.example`);
    await page.click('[data-action="sso"]');
    await expect.poll(() => page.locator('[data-form="person"] [role="alert"]').textContent()).toContain('not found');
    await shot('sso-refused');
    idp.accounts.set(`sam-${suffix}`, { email: SSO_PERSON, emailVerified: true });
    idp.next.accountId = `sam-${suffix}`;
    await page.fill('input[name="email"]', SSO_PERSON);
    await page.click('[data-action="sso"]');
    await signedInAs(SSO_PERSON);
    expect(await page.locator('[data-role]').textContent()).toBe('analyst');
    expect(await navLabels()).not.toContain('Members');
    expect(await navLabels()).toContain('Events');
    await open('/?range=last-7-days');
    expect(await kpi('margin')).toBe('$96.25');
    await shot('sso-analyst');
  });

  it('the owner revokes an open invitation (its link is then refused with the API message) and removes a member', async () => {
    await signOut();
    await signIn(OWNER, PASSWORD);
    await signedInAs(OWNER);
    await open('/members');
    const ivy = `ivy@${domain}`;
    await page.fill('input[name="invite-email"]', ivy);
    await page.selectOption('select[name="invite-role"]', 'viewer');
    await page.click('[data-form="invite"] button[type="submit"]');
    const link = await page.locator('input[aria-label="Invitation link"]').inputValue();
    const invited = page.locator(`[data-table="invitations"] tr[data-row="${ivy}"]`);
    await invited.waitFor();
    expect(await invited.locator('td[data-col="role"]').textContent()).toBe('viewer');
    await shot('members-invitations');
    await invited.locator('button:has-text("Revoke")').click();
    await invited.locator('button.danger').click();
    await expect.poll(() => invited.count()).toBe(0);

    const sam = page.locator(`[data-table="members"] tr[data-row="${SSO_PERSON}"]`);
    await sam.locator('button:has-text("Remove")').click();
    await sam.locator('button.danger').click();
    await expect.poll(() => sam.count()).toBe(0);
    // The last owner is offered no Remove.
    expect(await page.locator(`[data-table="members"] tr[data-row="${OWNER}"] button`).count()).toBe(0);

    await signOut();
    await acceptInBrowser(link, 'ivy would like a password');
    const refusal = page.locator('[data-form="accept-invitation"] [role="alert"]');
    await expect.poll(() => refusal.textContent()).toContain('revoked');
    expect(await refusal.getAttribute('data-field')).toBe('token');
    await shot('invitation-revoked');
  });

  it('300 page views by one person in a loop meet no 429', async () => {
    await open('/');
    await signIn(OWNER, PASSWORD);
    await signedInAs(OWNER);
    const pages = [
      '/',
      '/customers',
      '/agents',
      '/dimensions',
      '/sessions',
      '/events',
      '/rates',
      '/members',
      '/audit',
      '/api-keys',
      '/budgets',
    ];
    const from = answers.length;
    for (let view = 0; view < 300; view++) {
      await open(`${pages[view % pages.length]}?range=last-7-days`);
      await page.waitForFunction(`document.querySelector('[data-page]') && !document.querySelector('[aria-busy="true"]')`, null, {
        timeout: 20_000,
      });
    }
    const made = answers.slice(from);
    console.log(`300 page views: ${made.length} API requests`);
    expect(made.length).toBeGreaterThan(600);
    expect(made.filter((a) => a.status === 429)).toEqual([]);
    expect(made.filter((a) => a.status >= 400)).toEqual([]);
  }, 600_000);
});
