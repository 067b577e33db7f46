// The static site (scripts/build-site.sh) served from a sub-path, as a project page would be:
// dist/ is copied to `schedlab/` under a plain static server's root, so every address the page,
// its worker and the embed example use must resolve under /schedlab/. Run by tests/e2e/run.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const SITE = process.env.SCHEDLAB_SITE_URL ?? 'http://127.0.0.1:8766/schedlab/';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const origin = new URL(SITE).origin;
let ctx, profile;
// Every request any page, frame or worker makes; every failed response; every console error.
const requests = [];
const failures = [];
const errors = [];
const sockets = [];

before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'schedlab-site-'));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    viewport: { width: 1400, height: 1000 },
  });
  ctx.on('request', (r) => requests.push(r.url()));
  ctx.on('response', (r) => { if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`); });
});

after(async () => {
  await ctx?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function open(url) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('websocket', (ws) => sockets.push(ws.url()));
  page.on('worker', (w) => requests.push(`worker ${w.url()}`));
  await page.goto(url);
  return page;
}

test('the site runs the default comparison from its sub-path', async () => {
  const page = await open(SITE);
  await page.locator('#status[data-run="1"][data-state="done"]').waitFor({ timeout: 120_000 });
  assert.equal(await page.locator('.variant-result').count(), 2);
  assert.deepEqual(await page.locator('.variant-result h2').allInnerTexts(), ['cfs-5.14', 'cfs-6.1']);
  // The worker and both modules came from under /schedlab/.
  assert.ok(requests.includes(`${SITE}worker.js`), `no ${SITE}worker.js in ${requests.join('\n')}`);
  assert.ok(requests.some((u) => u.startsWith(SITE) && /\/worker_bg\.wasm$/.test(u)), 'the worker\'s wasm');
  assert.ok(requests.some((u) => u.startsWith(SITE) && /\/app-[0-9a-f]+_bg\.wasm$/.test(u)), 'the app\'s wasm');
  // A site build has no live-reload client: no websocket, no Trunk ws address in the page.
  const html = await (await page.request.get(SITE)).text();
  assert.ok(!html.includes('trunk/ws'), 'the live-reload client is in index.html');
  assert.deepEqual(sockets, []);
  await page.close();
});

test('the embed example shows its two views from the sub-path', async () => {
  const page = await open(`${SITE}embed-example.html`);
  const table = page.frameLocator('#embed-table');
  await table.locator('.embed.only-table .variant-result table.latency').first().waitFor({ timeout: 120_000 });
  assert.equal(await table.locator('.variant-result').count(), 2);
  assert.ok((await table.locator('a.open-full').getAttribute('href')).startsWith(`${SITE}#v1.`), 'open-in-schedlab link');
  const tl = page.frameLocator('#embed-timeline');
  await tl.locator('.embed .timeline-panel canvas.timeline').first().waitFor({ timeout: 120_000 });
  assert.equal(await tl.locator('.tl-variant').count(), 3);
  await page.close();
});

test('nothing went to another host or outside the sub-path, nothing failed, no console errors', () => {
  const own = requests.map((u) => u.replace(/^worker /, '')).filter((u) => !/^(blob|data):/.test(u));
  assert.ok(own.length > 5, `only ${own.length} requests seen`);
  const elsewhere = own.filter((u) => !u.startsWith(SITE));
  assert.deepEqual(elsewhere, [], `requests outside ${SITE} (origin ${origin})`);
  assert.deepEqual(failures, []);
  assert.deepEqual(errors, []);
});

test('the site carries a strict Content-Security-Policy that lets the page run', async () => {
  const res = await fetch(`${SITE}`);
  const html = await res.text();
  const m = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/);
  assert.ok(m, 'a CSP meta tag');
  const csp = m[1];
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.doesNotMatch(csp, /script-src[^;]*'unsafe-inline'|'unsafe-eval'/, 'no inline code beyond the hashed loader');
  assert.match(csp, /style-src 'self';/, 'style sheets only from the site (style attributes aside)');
});
