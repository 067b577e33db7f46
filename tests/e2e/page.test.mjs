// Browser tests of the playground page in Debian's headless Chromium (playwright-core, no
// downloaded browser). Run by tests/e2e/run.sh against the static build in dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.SCHEDLAB_URL ?? 'http://127.0.0.1:8765/';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
let ctx, page, profile;
const errors = [];

before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'schedlab-chromium-'));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    viewport: { width: 1500, height: 1100 },
  });
  page = ctx.pages()[0] ?? await ctx.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(BASE);
});

after(async () => {
  await ctx?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Waits until run number `n` has finished (done or failed) and returns its state. */
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

/** The runtime (ms) of the table row whose task is `task`, in variant column `col`. */
async function runtimeOf(col, task) {
  const row = page.locator('.variant-result').nth(col).locator(`tr.task[data-task="${task}"]`).first();
  return Number(await row.locator('td').nth(1).innerText());
}

test('the page opens with the default comparison already run, and no console errors', async () => {
  assert.equal(await waitRun(1), 'done');
  assert.equal(await page.locator('.variant-result').count(), 2);
  assert.deepEqual(await page.locator('.variant-result h2').allInnerTexts(), ['cfs-5.14', 'cfs-6.1']);
  assert.deepEqual(errors, []);
});

test('a preset runs to completion and shows one table per variant with its tasks', async () => {
  await page.selectOption('#presets', 'preset:tbench-stacked');
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const cols = page.locator('.variant-result');
  assert.equal(await cols.count(), 3);
  for (let i = 0; i < 3; i++) {
    const tasks = await cols.nth(i).locator('tr.task').evaluateAll((rows) => rows.map((r) => r.dataset.task).sort());
    // The pair only: it is pinned to one CPU, so no housekeeping runs beside it.
    assert.deepEqual(tasks, ['tbench', 'tbench_srv']);
  }
  assert.match(await cols.nth(0).locator('pre.figures').innerText(), /round trips: \d+/);
  // The thread's figures beside the model's, as `schedlab run --preset` prints them.
  const source = await page.locator('pre.source-figures').innerText();
  assert.match(source, /^the source's figures beside the model's/);
  assert.match(source, /eevdf-6\.12:NO_DELAY_DEQUEUE\s+56\.0 \(\+6\.0pp\)/);
  assert.deepEqual(errors, []);
});

test('the cgroup-weights preset shows its groups in the editor and splits the CPU 1:3 in every variant\'s group shares', async () => {
  await page.selectOption('#presets', 'preset:cgroup-weights');
  // The editor: two cgroups, each task group in its own.
  assert.deepEqual(await page.locator('fieldset.groups tr.cgroup-row input[aria-label="cgroup path"]').evaluateAll((xs) => xs.map((x) => x.value)), ['/web', '/db']);
  assert.deepEqual(await page.locator('tr.task-row select[aria-label="cgroup"]').evaluateAll((xs) => xs.map((x) => x.value)), ['/web', '/db']);
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const cols = page.locator('.variant-result');
  assert.equal(await cols.count(), 3);
  for (let i = 0; i < 3; i++) {
    // cpu.weight 100 vs 300: calc_group_shares gives each group entity its tg->shares, 1024 and
    // 3072, so 25 % and 75 % of the CPU (less the time no task runs).
    const share = async (g) => parseFloat(await cols.nth(i).locator(`table.group-shares tr[data-group="${g}"] td.share`).innerText());
    assert.ok(Math.abs(await share('/web') - 25) <= 1, `web ${await share('/web')}`);
    assert.ok(Math.abs(await share('/db') - 75) <= 1, `db ${await share('/db')}`);
    assert.deepEqual(await cols.nth(i).locator('table.latency td.group').allInnerTexts().then((g) => g.sort()), ['/db', '/web']);
  }
  assert.deepEqual(errors, []);
});

test('editing a nice value and re-running changes the table', async () => {
  await page.selectOption('#presets', 'example:1'); // nice 0 against nice 5
  let n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const before = await runtimeOf(0, 'nice5');
  const nice = page.locator('input[data-path="tasks[1].nice"]');
  await nice.fill('10');
  n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const after = await runtimeOf(0, 'nice5');
  // Weights 1024:335 give the nice-5 task 24.7% of the CPU; nice 10 (weight 110) gives 9.7%.
  assert.ok(after < before * 0.6, `nice-5 runtime ${before} ms, at nice 10 ${after} ms`);
});

test('the machine menu writes the measured machine into the scenario and reads it back', async () => {
  const menu = page.locator('select[data-path="machine"]');
  await menu.selectOption('epyc-vm');
  assert.equal((await scenarioJson()).machine, 'epyc-vm');
  assert.match(await menu.locator('option[value="epyc-vm"]').getAttribute('title'), /idle wakeup 3 µs/);
  await menu.selectOption('');
  assert.equal((await scenarioJson()).machine, undefined);
  const doc = await scenarioJson();
  doc.machine = 'xeon-vm';
  await page.evaluate(() => { document.querySelector('details.json').open = true; });
  await page.locator('#scenario-json').fill(JSON.stringify(doc, null, 2));
  await page.evaluate(() => { document.querySelector('details.json').open = false; });
  assert.equal(await menu.inputValue(), 'xeon-vm');
  await menu.selectOption('');
});

test('the histogram canvases are drawn', async () => {
  const canvas = page.locator('canvas.histogram[data-kind="delay"]').first();
  await canvas.waitFor();
  const inked = await canvas.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n++;
    return n;
  });
  assert.ok(inked > 1000, `only ${inked} non-white pixels`);
});

test('an invalid field shows its error and the scenario does not run', async () => {
  const nice = page.locator('input[data-path="tasks[0].nice"]');
  await nice.fill('-25');
  const err = page.locator('.field-error[data-path="tasks[0].nice"]');
  await err.waitFor();
  assert.match(await err.innerText(), /-25 is out of range \(allowed -20\.\.=19\)/);
  assert.equal(await nice.inputValue(), '-25', 'what was typed stays');
  const n = await runCount();
  await page.click('#run');
  await page.locator('#status[data-state="failed"]').waitFor();
  assert.match(await page.locator('#status').innerText(), /not run: .*tasks\[0\]\.nice/);
  assert.equal(await runCount(), n, 'no run started');
  await nice.fill('0');
  await page.locator('.field-error[data-path="tasks[0].nice"]').waitFor({ state: 'detached' });
});

test('the timeline shows the SCHED_IDLE hog\'s runs, zooms from the keyboard, and toggles the overlay', async () => {
  await page.selectOption('#presets', 'preset:sched-idle');
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  // Selecting a task in a table selects it in every variant's timeline.
  await page.locator('.variant-result').nth(0).locator('tr.task[data-task="idle"]').click();
  const runs = async (i) => page.locator('.tl-variant').nth(i).locator('tr.tl-slice')
    .evaluateAll((rows) => rows.map((r) => Number(r.dataset.durationNs)));
  // cfs-5.14: 4-ms runs; cfs-6.1: 1-ms runs (the first of each may start from placement).
  const old = await runs(0);
  const now = await runs(1);
  assert.ok(old.length >= 2 && old.every((d) => Math.abs(d - 4e6) < 0.1e6), `cfs-5.14 idle runs ${old}`);
  assert.ok(now.length >= 8 && now.every((d) => Math.abs(d - 1e6) < 0.05e6), `cfs-6.1 idle runs ${now}`);
  const panel = page.locator('.timeline-panel');
  const span = async () => Number(await panel.getAttribute('data-t1-ns')) - Number(await panel.getAttribute('data-t0-ns'));
  const full = await span();
  await panel.focus();
  await page.keyboard.press('+');
  assert.equal(await span(), full / 2, 'one + halves the window');
  await page.keyboard.press('ArrowRight');
  assert.equal(await span(), full / 2, 'panning keeps the width');
  await page.keyboard.press('f');
  assert.equal(await span(), full);
  assert.equal(await panel.getAttribute('data-overlay'), 'false');
  await page.keyboard.press('o');
  assert.equal(await panel.getAttribute('data-overlay'), 'true');
  await page.keyboard.press('?');
  await page.locator('.tl-help').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('.tl-help').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});

test('a copied link opens the same scenario, runs it and shows the same tables in a fresh page', async () => {
  await page.selectOption('#presets', 'preset:tbench-stacked');
  let n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const tables = async (p) => p.locator('.variant-result table.latency').allInnerTexts();
  const want = await tables(page);
  await page.click('#copy-link');
  const link = await page.locator('#link').inputValue();
  assert.match(link, /#v1\.[A-Za-z0-9_-]+$/);
  const fresh = await ctx.newPage();
  await fresh.goto(link);
  await fresh.locator('#status[data-run="1"][data-state="done"]').waitFor({ timeout: 120_000 });
  assert.deepEqual(await tables(fresh), want);
  assert.equal(await fresh.locator('#notice').count(), 0);
  await fresh.close();
});

test('a link opened in the open page (only the fragment changes) loads and runs it', async () => {
  // A link to the nice-ratio example, made by the page itself.
  await page.selectOption('#presets', 'example:1');
  let n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const niceName = await page.locator('input[data-path="name"]').inputValue();
  const niceTables = await page.locator('.variant-result table.latency').allInnerTexts();
  // The link carries a zoomed timeline window and a selected task.
  const panel = page.locator('.timeline-panel');
  await panel.focus();
  await page.keyboard.press('+');
  const shown = async () => [await panel.getAttribute('data-t0-ns'), await panel.getAttribute('data-t1-ns')];
  const zoomed = await shown();
  assert.ok(Number(zoomed[1]) > 0, `zoomed window ${zoomed}`);
  await page.click('#copy-link');
  const link = await page.locator('#link').inputValue();
  // Something else is open when the link arrives.
  await page.selectOption('#presets', 'preset:sched-idle');
  n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  // The page's own address-bar update after a run is not taken for a new link.
  await page.waitForTimeout(300);
  assert.equal(await runCount(), n + 1, 'the page re-ran after writing its own address');
  assert.notEqual(await page.locator('input[data-path="name"]').inputValue(), niceName);
  await page.evaluate(() => { window.__samePage = true; });
  await page.evaluate((h) => { location.hash = h; }, new URL(link).hash);
  assert.equal(await waitRun(n + 2), 'done');
  assert.equal(await page.evaluate(() => window.__samePage), true, 'the page was reloaded');
  assert.equal(await page.locator('input[data-path="name"]').inputValue(), niceName);
  assert.deepEqual(await page.locator('.variant-result table.latency').allInnerTexts(), niceTables);
  await page.waitForFunction((w) => {
    const p = document.querySelector('.timeline-panel');
    return p && p.dataset.t0Ns === w[0] && p.dataset.t1Ns === w[1];
  }, zoomed, { timeout: 5_000 });
  // A damaged link pasted the same way says so and leaves the scenario as it was.
  await page.evaluate(() => { location.hash = 'v1.this-is-not-a-link'; });
  await page.locator('#notice').waitFor();
  assert.match(await page.locator('#notice').innerText(), /could not be opened: the link is damaged/);
  assert.equal(await page.locator('input[data-path="name"]').inputValue(), niceName);
  assert.equal(await runCount(), n + 2);
  await page.click('#notice button');
});

test('a damaged link says what is wrong and opens the default scenario', async () => {
  const fresh = await ctx.newPage();
  await fresh.goto(`${BASE}#v1.this-is-not-a-link`);
  await fresh.locator('#notice').waitFor();
  assert.match(await fresh.locator('#notice').innerText(), /could not be opened: the link is damaged/);
  await fresh.locator('#status[data-run="1"][data-state="done"]').waitFor({ timeout: 120_000 });
  assert.equal(await fresh.locator('.variant-result').count(), 2);
  await fresh.close();
});

test('the embed example page shows its two views', async () => {
  const fresh = await ctx.newPage();
  const errs = [];
  fresh.on('pageerror', (e) => errs.push(String(e)));
  await fresh.goto(`${BASE}embed-example.html`);
  const table = fresh.frameLocator('#embed-table');
  await table.locator('.embed.only-table .variant-result table.latency').first().waitFor({ timeout: 120_000 });
  assert.equal(await table.locator('.variant-result').count(), 2);
  assert.match(await table.locator('a.open-full').getAttribute('href'), /#v1\./);
  const tl = fresh.frameLocator('#embed-timeline');
  await tl.locator('.embed .timeline-panel canvas.timeline').first().waitFor({ timeout: 120_000 });
  assert.equal(await tl.locator('.tl-variant').count(), 3);
  assert.deepEqual(errs, []);
  await fresh.close();
});

test('exports produce files of the right type', async () => {
  const save = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    const path = await dl.path();
    const { readFileSync } = await import('node:fs');
    return { name: dl.suggestedFilename(), text: readFileSync(path, 'utf8') };
  };
  const csv = await save('#export-csv');
  assert.equal(csv.name, 'schedlab-tasks.csv');
  // The command line's CSV (`schedlab run --format csv`): the same columns and quoting.
  assert.match(csv.text, /^variant,name,pid,runtime_ns,switches,delay_avg_ns,delay_max_ns,delay_sum_ns,run_delay_ns,pcount,/);
  assert.ok(csv.text.split('\n').length > 3);
  const json = JSON.parse((await save('#export-json')).text);
  assert.ok(Array.isArray(json.summary) && json.variants[0].cpus.length > 0, 'the command line\'s JSON report');
  const perfetto = await save('#export-perfetto');
  const doc = JSON.parse(perfetto.text);
  assert.ok(doc.traceEvents.some((e) => e.ph === 'X'), 'complete events');
  const perf = await save('#export-perf');
  assert.match(perf.text, /Task {18}\| {3}Runtime ms {2}\| Switches \|/);
  const scen = await save('#save-scenario');
  assert.equal(JSON.parse(scen.text).version, 1);
  // Charts: SVG from the same drawing code as the canvas, PNG of the canvases.
  const svg = await save('figure.histogram >> nth=0 >> button.svg');
  assert.match(svg.name, /^schedlab-.*\.svg$/);
  assert.match(svg.text, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg.text, /<rect /, 'the bars are drawn');
  const [hpng] = await Promise.all([page.waitForEvent('download'), page.click('figure.histogram >> nth=0 >> button.png')]);
  const { readFileSync } = await import('node:fs');
  assert.deepEqual([...readFileSync(await hpng.path()).subarray(1, 4)], [0x50, 0x4e, 0x47], 'PNG magic');
  const [tpng] = await Promise.all([page.waitForEvent('download'), page.click('.tl-variant >> nth=0 >> button.png')]);
  assert.match(tpng.suggestedFilename(), /^schedlab-timeline-.*\.png$/);
  assert.ok(readFileSync(await tpng.path()).length > 1000, 'a non-empty timeline PNG');
  const tsvg = await save('.tl-variant >> nth=0 >> button.svg');
  assert.match(tsvg.name, /^schedlab-timeline-.*\.svg$/);
  assert.match(tsvg.text, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.ok((tsvg.text.match(/<rect /g) ?? []).length > 10, 'the timeline\'s lanes and runs are drawn');
});

test('the embed code dialog gives an iframe that shows the chosen view', async () => {
  await page.click('#embed-code');
  await page.selectOption('#embed-view', 'histogram');
  const code = await page.locator('#embed-snippet').inputValue();
  assert.match(code, /^<iframe title="schedlab: [^"]*" src="[^"]*#embed=histogram&amp;v1\.[A-Za-z0-9_-]+" /);
  await page.locator('#embed-snippet').press('Escape');
  await page.locator('#embed-dialog').waitFor({ state: 'detached' });
  assert.equal(await page.locator('#embed-code').getAttribute('aria-expanded'), 'false');
  // The snippet pasted into a page of its own.
  const fresh = await ctx.newPage();
  await fresh.setContent(`<!doctype html><body>${code}</body>`);
  await fresh.frameLocator('iframe').locator('.embed.only-histogram figure.histogram canvas').first()
    .waitFor({ timeout: 120_000 });
  assert.equal(await fresh.frameLocator('iframe').locator('.embed table.latency:visible').count(), 0);
  await fresh.close();
});

test('a scenario file dropped on the page opens, and a file that is not one is named in the error', async () => {
  const drop = async (name, text) => {
    const dt = await page.evaluateHandle(([n, t]) => {
      const d = new DataTransfer();
      d.items.add(new File([t], n, { type: 'application/json' }));
      return d;
    }, [name, text]);
    await page.dispatchEvent('.page', 'dragover', { dataTransfer: dt });
    await page.dispatchEvent('.page', 'drop', { dataTransfer: dt });
  };
  const scen = await scenarioJson();
  scen.name = 'dropped scenario';
  await drop('dropped.json', JSON.stringify(scen));
  await page.waitForFunction(() => document.querySelector('input[data-path="name"]')?.value === 'dropped scenario');
  await drop('notes.json', 'these are my notes');
  await page.locator('#notice').waitFor();
  assert.match(await page.locator('#notice').innerText(), /notes\.json/);
  assert.equal(await page.locator('input[data-path="name"]').inputValue(), 'dropped scenario', 'what was loaded stays');
});

test('workload parameters have a form whose fields edit the same document as the JSON view', async () => {
  await page.selectOption('#presets', 'preset:hackbench');
  const groups = page.locator('.workload-row >> nth=0 >> input.param[name="groups"]');
  await groups.waitFor();
  assert.equal(await groups.getAttribute('placeholder'), '10', 'the default is shown');
  assert.match(await groups.getAttribute('aria-description'), /1\.\.=1000/, 'what is allowed is said');
  await groups.fill('3');
  const doc = await scenarioJson();
  assert.equal(doc.workloads[0].hackbench.groups, 3);
  await groups.fill('0');
  await page.locator('.field-error[data-path="workloads[0].hackbench.groups"]').waitFor();
  assert.equal(await groups.inputValue(), '0', 'what was typed stays');
  await groups.fill('8');
});

test('with five variants nothing overflows the page at 800, 1280 and 1920 px', async () => {
  await page.selectOption('#presets', 'preset:hackbench');
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  assert.equal(await page.locator('.variant-result').count(), 5);
  for (const width of [800, 1280, 1920]) {
    await page.setViewportSize({ width, height: 1000 });
    const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
    assert.ok(m.sw <= m.iw, `at ${width} px the page is ${m.sw} px wide`);
  }
  // Narrow: the editor is a drawer, closed at first, with the run bar still at hand.
  await page.setViewportSize({ width: 800, height: 1000 });
  assert.equal(await page.locator('.editor-toggle').isVisible(), true);
  assert.equal(await page.locator('input[data-path="cpus"]').isVisible(), false);
  assert.equal(await page.locator('#run').isVisible(), true);
  await page.click('.editor-toggle');
  assert.equal(await page.locator('input[data-path="cpus"]').isVisible(), true);
  await page.click('.editor-toggle');
  await page.setViewportSize({ width: 1500, height: 1100 });
  assert.equal(await page.locator('.editor-toggle').isVisible(), false);
  assert.equal(await page.locator('input[data-path="cpus"]').isVisible(), true);
});

test('CPUs that never ran a task share one lane until asked', async () => {
  await page.selectOption('#presets', 'example:2');
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  const lanes = async () => Number(await page.locator('.tl-variant canvas.timeline').first().getAttribute('height'));
  const folded = await lanes();
  await page.click('#tl-idle');
  const all = await lanes();
  assert.ok(all > folded, `every CPU's lane (${all} px) is taller than the folded view (${folded} px)`);
  await page.click('#tl-idle');
  assert.equal(await lanes(), folded);
});

test('Cancel then Run: the cancelled run leaves nothing behind and the new run shows its own results', async () => {
  await page.selectOption('#presets', 'example:0');
  await page.locator('input[data-path="duration_ms"]').fill('3600000');
  const n = await runCount();
  await page.click('#run');
  await page.locator(`#status[data-run="${n + 1}"][data-state="running"]`).waitFor();
  await page.locator('#progress').waitFor();
  await page.click('#cancel');
  assert.equal(await page.locator('#status').getAttribute('data-state'), 'failed');
  await page.selectOption('#presets', 'example:2');
  await page.click('#run');
  assert.equal(await waitRun(n + 2), 'done');
  // Give a reply of the cancelled run time to arrive: it must not replace these results.
  await page.waitForTimeout(500);
  assert.equal(await page.locator('#status').getAttribute('data-run'), String(n + 2));
  assert.equal(await page.locator('#status').getAttribute('data-state'), 'done');
  assert.ok(await page.locator('.variant-result >> nth=0 >> tr.task[data-task="idle"]').count() > 0,
    'the SCHED_IDLE pair\'s tables, not the cancelled hogs\'');
});

test('a scenario file over the size cap is refused by its size, and the form keeps what it had', async () => {
  const before = await page.locator('input[data-path="name"]').inputValue();
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File([new Uint8Array(3 << 20).fill(32)], 'huge.json', { type: 'application/json' }));
    return d;
  });
  await page.dispatchEvent('.page', 'drop', { dataTransfer: dt });
  await page.waitForFunction(() => /huge\.json/.test(document.querySelector('#notice')?.innerText ?? ''));
  assert.match(await page.locator('#notice').innerText(), /huge\.json.*at most 1048576 bytes/);
  assert.equal(await page.locator('input[data-path="name"]').inputValue(), before);
});

test('first divergence: hackbench eevdf-6.6 vs NO_RUN_TO_PARITY at the command line\'s time, both timelines there; identical variants have none', async () => {
  const { readFileSync } = await import('node:fs');
  const path = process.env.SCHEDLAB_NATIVE_CLI;
  assert.ok(path, 'tests/e2e/run.sh passes the command line\'s answers');
  const native = JSON.parse(readFileSync(path, 'utf8'));
  await page.selectOption('#presets', 'preset:hackbench');
  let n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  // The preset runs cfs-6.1, eevdf-6.6:NO_RUN_TO_PARITY, eevdf-6.6, eevdf-6.6:WAKEUP_DEADLINE,
  // eevdf-6.6:NO_RUN_TO_PARITY,WAKEUP_PARITY.
  await page.selectOption('#diff-a', '2');
  await page.selectOption('#diff-b', '1');
  // From the keyboard.
  await page.focus('#diff-go');
  await page.keyboard.press('Enter');
  const res = page.locator('#divergence .div-result');
  await res.waitFor();
  assert.equal(await res.getAttribute('data-found'), 'true');
  const at = (await res.locator('.div-at').innerText()).match(/first divergence at ([0-9.]+) s/)[1];
  assert.equal(at, native.diff_hackbench, 'the page\'s divergence is schedlab diff\'s');
  assert.match(await res.locator('.div-settings').innerText(), /RUN_TO_PARITY on \/ off/);
  const sides = res.locator('.div-side');
  assert.deepEqual(await sides.evaluateAll((e) => e.map((x) => x.dataset.variant)), ['eevdf-6.6', 'eevdf-6.6:NO_RUN_TO_PARITY']);
  assert.match(await sides.nth(0).locator('.div-event').innerText(), /sched_/);
  assert.match(await sides.nth(1).locator('.div-event').innerText(), /sched_switch/);
  assert.ok(await sides.nth(0).locator('.div-state tr[data-task]').count() >= 1, 'the fair-class state of the tasks involved');
  assert.match(await sides.nth(0).locator('.div-state').innerText(), /eligible/);
  // The decision records name the same wakeup check on both sides.
  assert.match(await sides.nth(0).locator('.div-why').innerText(), /does not preempt .*RUN_TO_PARITY protected curr/);
  assert.match(await sides.nth(1).locator('.div-why').innerText(), / preempts .*nothing protected curr/);
  // The shared window holds it, and the ruler marks it.
  const t = Number(await res.getAttribute('data-t-ns'));
  const tl = page.locator('.timeline-panel');
  const t0 = Number(await tl.getAttribute('data-t0-ns'));
  const t1 = Number(await tl.getAttribute('data-t1-ns'));
  assert.ok(t0 <= t && t < t1 && t1 - t0 <= 2_000_000, `${t0}..${t1} holds ${t}`);
  assert.match(await page.locator('.tl-ruler').innerText(), /ruler: from/);

  // Two identical variants of one scenario.
  await page.selectOption('#presets', 'preset:sched-idle');
  const doc = await scenarioJson();
  doc.variants = ['eevdf-6.6', 'eevdf-6.6'];
  await page.evaluate(() => { document.querySelector('details.json').open = true; });
  await page.locator('#scenario-json').fill(JSON.stringify(doc, null, 1));
  await page.evaluate(() => { document.querySelector('details.json').open = false; });
  n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  await page.click('#diff-go');
  await res.waitFor();
  assert.equal(await res.getAttribute('data-found'), 'false');
  assert.match(await res.innerText(), /no divergence/);
  assert.deepEqual(errors, []);
});

test('a sweep runs its points in workers, equals schedlab sweep row for row, plots, exports, and its link restores it; Cancel stops one', async () => {
  const { readFileSync } = await import('node:fs');
  const native = JSON.parse(readFileSync(process.env.SCHEDLAB_NATIVE_CLI, 'utf8'));
  await page.selectOption('#presets', 'preset:sched-idle');
  await page.fill('#sweep-param', 'latency_ns=3000000..12000000:4');
  await page.fill('#sweep-figure', 'share:idle');
  await page.click('#sweep-run');
  const res = page.locator('#sweep .sweep-result');
  await page.locator('#sweep .sweep-result[data-state="done"]').waitFor({ timeout: 120_000 });
  // Every run's trace hash is the command line's for the same point and variant.
  const want = native.sweep_sched_idle_csv.trim().split('\n').slice(1).map((l) => l.split(','));
  const cells = await res.locator('td.job').evaluateAll((e) => e.map((x) => x.dataset.traceHash));
  assert.deepEqual(cells, want.map((r) => r[11]), 'trace hashes, page vs schedlab sweep');
  const save = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
  };
  const csv = await save('#sweep-csv');
  assert.equal(csv.name, 'schedlab-sweep.csv');
  assert.equal(csv.text, native.sweep_sched_idle_csv, 'the CSV is schedlab sweep --format csv');
  const svg = await save('#sweep-svg');
  assert.match(svg.text, /^<svg/);
  // The plot: one line per variant.
  assert.equal(await res.locator('.sweep-plot svg').count(), 1);
  assert.match(await res.locator('.sweep-plot svg').innerHTML(), /cfs-5\.14[\s\S]*cfs-6\.1/);

  // The link carries the sweep; a fresh page runs it again.
  await page.click('#copy-link');
  const link = await page.locator('#link').inputValue();
  const fresh = await ctx.newPage();
  await fresh.goto(link);
  await fresh.locator('#sweep .sweep-result[data-state="done"]').waitFor({ timeout: 120_000 });
  assert.equal(await fresh.locator('#sweep-param').inputValue(), 'latency_ns=3000000..12000000:4');
  assert.equal(await fresh.locator('#sweep-figure').inputValue(), 'share:idle');
  assert.deepEqual(await fresh.locator('#sweep td.job').evaluateAll((e) => e.map((x) => x.dataset.traceHash)), cells);
  await fresh.close();

  // Cancel: a long sweep stops at once, and the next one runs.
  await page.selectOption('#presets', 'preset:hackbench');
  await page.fill('#sweep-param', 'workloads.0.hackbench.loops=100..6400:8');
  await page.click('#sweep-run');
  await page.locator('#sweep td.job[data-state="running"]').first().waitFor();
  await page.click('#sweep-cancel');
  await page.locator('#sweep .sweep-result[data-state="cancelled"]').waitFor();
  assert.ok(await page.locator('#sweep td.job[data-state="done"]').count() < 32);
  await page.fill('#sweep-param', 'nonsense');
  await page.click('#sweep-run');
  assert.match(await page.locator('#sweep-error').innerText(), /nonsense/);
  assert.deepEqual(errors, []);
});

test('a switch in the timeline says who was switched out, why, and both tasks\' fair-class state', async () => {
  await page.selectOption('#presets', 'preset:sched-idle');
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  await page.locator('.variant-result').nth(1).locator('tr.task[data-task="idle"]').click();
  const tl = page.locator('.tl-variant').nth(1);
  await tl.locator('details.tl-runs summary').click();
  // cfs-6.1: the SCHED_IDLE task runs 1 ms and the tick gives the CPU back to the hog.
  await tl.locator('tr.tl-slice').nth(1).locator('button.tl-why').click();
  const note = tl.locator('.tl-switch');
  await note.waitFor();
  assert.match(await note.locator('.tl-switch-what').innerText(), /^idle:\d+ ran 1(\.0+)? ?ms on CPU 0 .*switched out at .*preempted by hog:\d+ \(slice used up, tick\)/);
  const rows = await note.locator('tr[data-task]').evaluateAll((r) => r.map((x) => x.dataset.task.split(':')[0]));
  assert.deepEqual(rows, ['idle', 'hog']);
  assert.match(await note.locator('tr[data-task]').nth(0).innerText(), /\d/);
  // The worker's decision records for it: prev preempted, then the pick that chose the hog.
  const decisions = note.locator('.tl-switch-decisions');
  await decisions.waitFor();
  const text = await decisions.innerText();
  assert.match(text, /^prev idle:\d+ was preempted \(R\)/);
  assert.match(text, / pick +pick_next_entity \(CFS\): chose hog:\d+/);
  // From the keyboard: the button is focusable; close with it.
  await note.locator('button.tl-switch-close').focus();
  await page.keyboard.press('Enter');
  await note.waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});

test('determinism: every preset gives the same traces in the page (wasm, in its worker) as natively', async () => {
  const { readFileSync } = await import('node:fs');
  const path = process.env.SCHEDLAB_NATIVE_HASHES;
  assert.ok(path, 'tests/e2e/run.sh passes the native hashes');
  const native = JSON.parse(readFileSync(path, 'utf8'));
  assert.ok(Object.keys(native).length >= 7, 'every preset');
  for (const [preset, want] of Object.entries(native)) {
    await page.selectOption('#presets', `preset:${preset}`);
    const n = await runCount();
    await page.click('#run');
    assert.equal(await waitRun(n + 1), 'done', preset);
    // In the scenario's order (the page's form may write a variant's items in another order).
    const got = [];
    for (const el of await page.locator('.variant-result').all()) {
      got.push(await el.getAttribute('data-trace-hash'));
    }
    assert.deepEqual(got, Object.values(want), `${preset}: trace hashes, page vs native`);
  }
});

test('hostile names render as text: a scenario and task named with HTML run without creating elements', async () => {
  const hostile = '<img src=x onerror=__xss=1>';
  // A task's name is a comm (at most 15 bytes, no '/' or ':').
  const comm = '<b id=xq>x';
  const scen = {
    version: 1, name: hostile, cpus: 1, hz: 1000, duration_ms: 100, seed: 1, variants: ['eevdf-6.6'],
    tasks: [{ name: comm, program: [{ run: 'forever' }] }, { name: 'b', program: [{ run: 'forever' }] }],
  };
  const dt = await page.evaluateHandle((t) => {
    const d = new DataTransfer();
    d.items.add(new File([t], 'hostile.json', { type: 'application/json' }));
    return d;
  }, JSON.stringify(scen));
  await page.dispatchEvent('.page', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('.page', 'drop', { dataTransfer: dt });
  await page.waitForFunction((h) => document.querySelector('input[data-path="name"]')?.value === h, hostile);
  const n = await runCount();
  await page.click('#run');
  assert.equal(await waitRun(n + 1), 'done');
  assert.equal(await page.evaluate(() => document.querySelectorAll('img[src="x"], #xq').length), 0, 'no element made from a name');
  assert.equal(await page.evaluate(() => typeof globalThis.__xss), 'undefined', 'no handler ran');
  assert.ok((await page.locator('.variant-result').first().innerText()).includes(comm), 'the task name shows as text');
});
