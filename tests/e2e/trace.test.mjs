// Browser tests of real recordings in the page (a "recorded" column beside the variants) and of
// the page surviving its worker: a worker that traps, Cancel, a panic in the page, the
// wall-clock budget. Run by tests/e2e/run.sh against the static build in dist/.
//
// The worker failures are provoked from the test alone: an init script keeps the page's Worker
// objects, and the test posts a message no build of the page sends (the worker's decoder panics,
// a real wasm trap) or delivers one to the page (the page's decoder panics). Nothing in the page
// reacts to anything a link could carry.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BASE = process.env.SCHEDLAB_URL ?? 'http://127.0.0.1:8765/';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
let ctx, page, profile;
const requests = [];

before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'schedlab-chromium-'));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    viewport: { width: 1500, height: 1100 },
  });
  // Keep every Worker the page makes (and count terminations), for the failure tests.
  await ctx.addInitScript(() => {
    const W = window.Worker;
    window.__workers = [];
    window.__terminated = 0;
    window.Worker = class extends W {
      constructor(...a) { super(...a); window.__workers.push(this); }
      terminate() { window.__terminated++; super.terminate(); }
    };
  });
  page = ctx.pages()[0] ?? await ctx.newPage();
  page.on('request', (r) => requests.push({ url: r.url(), method: r.method() }));
  await page.goto(BASE);
});

after(async () => {
  await ctx?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function waitRun(n) {
  const status = page.locator(`#status[data-run="${n}"]:is([data-state="done"], [data-state="failed"])`);
  await status.waitFor({ timeout: 120_000 });
  return status.getAttribute('data-state');
}

async function runCount() {
  return Number(await page.locator('#status').getAttribute('data-run'));
}

// The scenario's JSON as its view shows it (the view's text area exists only while it is open).
async function scenarioJson() {
  await page.evaluate(() => { document.querySelector('details.json').open = true; });
  const text = await page.locator('#scenario-json').inputValue();
  await page.evaluate(() => { document.querySelector('details.json').open = false; });
  return JSON.parse(text);
}

/** Drops a file holding `bytes` (a Node Buffer) or `text` named `name` on the page. */
async function drop(name, bytes) {
  const dt = await page.evaluateHandle(([n, b]) => {
    const d = new DataTransfer();
    d.items.add(new File([new Uint8Array(b)], n));
    return d;
  }, [name, [...bytes]]);
  await page.dispatchEvent('.page', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('.page', 'drop', { dataTransfer: dt });
}

test('a dropped perf script recording (gzip) is a recorded column with its tasks and timeline lanes; its derived scenario runs beside it', async () => {
  assert.equal(await waitRun(1), 'done');
  assert.match(await page.locator('#privacy').innerText(), /never uploaded/);
  const before = requests.length;
  await drop('hogs.perf-script.txt.gz', readFileSync(join(FIXTURES, 'traces/hogs.perf-script.txt.gz')));
  const col = page.locator('.recorded-result');
  await col.waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#recording').getAttribute('data-format'), 'perf script');
  // The rows perf sched latency prints for this recording (tests/fixtures/traces/hogs.perf-latency.txt).
  const tasks = await col.locator('tr.task').evaluateAll((rows) => rows.map((r) => r.dataset.task));
  for (const t of ['hog', 'my hog [a:1]', 'opt cgu.00', 'lto cgu.09']) {
    assert.ok(tasks.includes(t), `${t} in ${tasks}`);
  }
  // The simulated variants are still shown beside it, and its own lanes lead the timeline.
  assert.equal(await page.locator('.variant-result').count(), 2);
  const lanes = page.locator('.tl-variant[data-variant="recorded"] canvas.timeline');
  await lanes.waitFor();
  assert.ok(Number(await lanes.getAttribute('height')) > 40);
  // The recording is 2.0 s long, the default scenario 0.1 s: one shared window spans both.
  const t1 = Number(await page.locator('.timeline-panel').getAttribute('data-t1-ns'));
  assert.ok(t1 > 1.5e9, `the window ends at ${t1} ns`);
  // Read in the browser: nothing was sent anywhere.
  const sent = requests.slice(before).filter((r) => r.method !== 'GET' || !(r.url.startsWith(BASE) || r.url.startsWith('blob:')));
  assert.deepEqual(sent, []);

  await page.click('#make-scenario');
  await page.waitForFunction(() => document.querySelector('input[data-path="name"]')?.value === 'recorded: hogs.perf-script.txt.gz');
  assert.match(await page.locator('#derived-notes').innerText(), /exponential/);
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  assert.ok(await page.locator('.recorded-result').count() === 1, 'the recording stays');
  const vcols = page.locator('.variant-result');
  assert.ok(await vcols.count() >= 1);
  // The derived scenario's tasks are the recording's command names.
  const simTasks = await vcols.first().locator('tr.task').evaluateAll((rows) => rows.map((r) => r.dataset.task));
  assert.ok(simTasks.includes('hog'), `${simTasks}`);
  assert.equal(await vcols.first().locator('table.delta').getAttribute('data-base'), 'recorded');
  assert.match(await vcols.first().locator('table.delta').innerText(), /share hog/);
  assert.ok(await page.locator('.tl-variant').count() >= 2, 'recorded and simulated lanes');

  await page.click('#remove-recording');
  await page.locator('.recorded-result').waitFor({ state: 'detached' });
  assert.equal(await page.locator('.tl-variant[data-variant="recorded"]').count(), 0);
});

test('a timehist recording says it has no wakeups; a perf script text pasted with a broken line shows its warning', async () => {
  await drop('pipe.timehist.txt.gz', readFileSync(join(FIXTURES, 'traces/pipe.timehist.txt.gz')));
  await page.locator('#recording[data-format="perf sched timehist"]').waitFor({ timeout: 60_000 });
  assert.match(await page.locator('.recorded-result .missing-wakeups').innerText(), /no wakeup events/);
  assert.equal(await page.locator('.recorded-result tr td[title="not in a recording"]').first().innerText(), '—');

  const text = gunzipSync(readFileSync(join(FIXTURES, 'traces/hogs.perf-script.txt.gz'))).toString().split('\n');
  text.splice(100, 0, '            perf 12510 [000]  2263.974600: sched:sched_switch: prev_comm=perf garbled');
  await page.click('.rec-paste summary');
  await page.locator('#paste-trace').fill(text.slice(0, 300).join('\n'));
  await page.click('#paste-read');
  await page.locator('#recording[data-file="pasted text"]').waitFor({ timeout: 60_000 });
  const w = page.locator('#import-warnings');
  assert.equal(await w.getAttribute('data-count'), '1');
  await w.locator('summary').click();
  assert.match(await w.innerText(), /line 101:/);
  await page.click('#remove-recording');
});

test('a dropped text that is no trace is refused with the formats tried; a scenario file still opens', async () => {
  await drop('notes.txt', Buffer.from('these are my notes\nnothing else\n'));
  await page.locator('#import-error').waitFor();
  assert.match(await page.locator('#import-error').innerText(),
    /notes\.txt: not a scheduler trace: tried .*perf script.*ftrace.*timehist/);
  assert.equal(await page.locator('.recorded-result').count(), 0);
  const scen = await scenarioJson();
  scen.name = 'still a scenario';
  await drop('s.json', Buffer.from(JSON.stringify(scen)));
  await page.waitForFunction(() => document.querySelector('input[data-path="name"]')?.value === 'still a scenario');
});

test('a large recording shows its progress and Cancel stops reading it', async () => {
  const handle = await page.evaluateHandle(() => {
    const line = '            perf 12510 [000]  2263.974585:       sched:sched_switch: prev_comm=perf prev_pid=12510 prev_prio=120 prev_state=R ==> next_comm=hog next_pid=7 next_prio=120\n';
    const block = line.repeat(8000);
    const d = new DataTransfer();
    d.items.add(new File(Array(150).fill(block), 'big.perf-script.txt'));
    return d;
  });
  await page.dispatchEvent('.page', 'drop', { dataTransfer: handle });
  const progress = page.locator('#import-progress');
  await progress.waitFor();
  assert.match(await progress.innerText(), /reading big\.perf-script\.txt: [\d.]+ of [\d.]+ MB/);
  await page.click('#import-cancel');
  await progress.waitFor({ state: 'detached' });
  assert.match(await page.locator('#import-error').innerText(), /reading cancelled/);
  await page.waitForTimeout(500);
  assert.equal(await page.locator('.recorded-result').count(), 0, 'nothing of it arrives later');
});

test('a worker that traps: the run is marked failed with a message, and the next run works; Cancel terminates the worker', async () => {
  await page.selectOption('#presets', 'example:0');
  await page.locator('input[data-path="duration_ms"]').fill('3600000');
  let n = await runCount();
  await page.click('#run');
  await page.locator(`#status[data-run="${n + 1}"][data-state="running"]`).waitFor();
  await page.locator('#progress').waitFor();
  // A message no build of the page sends: the worker's decoder panics (a wasm trap).
  await page.evaluate(() => { for (const w of window.__workers) w.postMessage(new Uint8Array([0xff, 0xff])); });
  assert.equal(await waitRun(n + 1), 'failed');
  assert.match(await page.locator('#status').innerText(), /simulation worker failed \(.*unreachable: panicked at [\s\S]*a worker message decodes[\s\S]*\); this run is marked failed, and the next run starts a new worker/);
  await page.selectOption('#presets', 'example:2');
  n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done', 'a fresh worker runs the next one');

  await page.selectOption('#presets', 'example:0');
  await page.locator('input[data-path="duration_ms"]').fill('3600000');
  n = await runCount();
  await page.click('#run');
  await page.locator('#progress').waitFor();
  const terminated = await page.evaluate(() => window.__terminated);
  await page.click('#cancel');
  assert.equal(await page.evaluate(() => window.__terminated), terminated + 1, 'Cancel terminates the worker');
});

test('a run over the page\'s wall-clock budget stops with a message naming the limit', async () => {
  await page.evaluate(() => { window.schedlabRunBudgetMs = 2000; });
  const n = await runCount();
  await page.click('#run'); // the hour-long scenario of the test before
  assert.equal(await waitRun(n + 1), 'failed');
  assert.match(await page.locator('#status').innerText(), /at most 2 s of wall-clock time/);
  await page.evaluate(() => { delete window.schedlabRunBudgetMs; });
});

test('a panic in the page shows an error panel with a report to copy, never a blank page', async () => {
  await page.selectOption('#presets', 'example:2');
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  // A reply no worker sends: the page's own decoder panics.
  await page.evaluate(() => {
    for (const w of window.__workers) w.dispatchEvent(new MessageEvent('message', { data: new Uint8Array([0xff, 0xff]) }));
  });
  const panel = page.locator('#error-panel');
  await panel.waitFor();
  const text = await panel.innerText();
  assert.match(text, /schedlab stopped/);
  assert.match(text, /error: panicked at [\s\S]*a worker message decodes/);
  assert.match(text, /scenario: http:\/\/127\.0\.0\.1:\d+\/#v1\./);
  assert.equal(await page.locator('#copy-report').isVisible(), true);
});
