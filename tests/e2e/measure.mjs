// Measures a run of the page at scale (not a test): opens the page in headless Chromium, runs
// the scenario of the file given, and prints the wall time from "Run" to the end and the peak
// resident memory of the browser's processes (the largest one, which holds the page and its
// simulation worker, and all together), sampled every 250 ms; with --cancel-at S it cancels
// the run after S seconds and prints the memory a few seconds later.
//
//   node tests/e2e/measure.mjs URL SCENARIO.json [--cancel-at S]
import { readFileSync, readdirSync } from 'node:fs';
import { launch, openWithScenario } from './measure-lib.mjs';

const [url, file, ...rest] = process.argv.slice(2);
const cancelAt = rest[0] === '--cancel-at' ? Number(rest[1]) : null;
const { ctx, profile, close } = await launch();

/** RSS (MB) of every process started with this profile: [largest, total]. */
function rss() {
  let max = 0, total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(profile)) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (!m) continue;
      const mb = Number(m[1]) / 1024;
      max = Math.max(max, mb);
      total += mb;
    } catch { /* gone */ }
  }
  return [max, total];
}

try {
  const { page, n } = await openWithScenario(ctx, url, file);
  const [base] = rss();
  let peak = [0, 0];
  const t0 = Date.now();
  await page.click('#run');
  let state = 'running', last = '';
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const [m, t] = rss();
    peak = [Math.max(peak[0], m), Math.max(peak[1], t)];
    const st = page.locator(`#status[data-run="${n + 1}"]`);
    state = (await st.count()) ? await st.getAttribute('data-state') : 'running';
    last = await page.locator('#status').innerText();
    if (state !== 'running') break;
    if (cancelAt !== null && Date.now() - t0 > cancelAt * 1000) {
      await page.click('#cancel');
      await new Promise((r) => setTimeout(r, 5000));
      const [m2, t2] = rss();
      console.log(`cancelled after ${cancelAt} s (${last}); peak ${peak[0].toFixed(0)} MB largest process, ${peak[1].toFixed(0)} MB all; 5 s after Cancel ${m2.toFixed(0)} MB largest, ${t2.toFixed(0)} MB all`);
      state = 'cancelled';
      break;
    }
  }
  if (state !== 'cancelled') {
    const secs = (Date.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 3000));
    const [after] = rss();
    console.log(`${state} in ${secs.toFixed(1)} s: ${last.trim()}`);
    console.log(`largest process: ${base.toFixed(0)} MB before, peak ${peak[0].toFixed(0)} MB, ${after.toFixed(0)} MB after; all processes peak ${peak[1].toFixed(0)} MB`);
  }
} finally {
  await close();
}
