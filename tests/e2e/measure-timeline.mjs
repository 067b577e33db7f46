// Measures the timeline's frame cost at scale (not a test): opens the page in headless
// Chromium, runs the scenario of the file given, then zooms and pans the first variant's
// timeline from the keyboard, with no task selected and with one selected (and with its
// overlay), and prints per step the main thread's time from the key press to the redrawn
// canvas (p50, p95, max) and the frame rate a sequence of steps, one per animation frame,
// reaches.
//
//   node tests/e2e/measure-timeline.mjs URL SCENARIO.json [TASK]
//
// TASK is the task name to select (default: the first row of the first variant's table).
import { launch, openWithScenario } from './measure-lib.mjs';

const [url, file, task] = process.argv.slice(2);
if (!url || !file) {
  console.error('usage: node tests/e2e/measure-timeline.mjs URL SCENARIO.json [TASK]');
  process.exit(2);
}
const { ctx, close } = await launch();

/** In the page: presses keys on the timeline panel, one per step, and times each step. */
function steps(keys) {
  const panel = document.querySelector('.timeline-panel');
  const idle = () => new Promise((r) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => r();
    ch.port2.postMessage(0);
  });
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const press = (key) => panel.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
  return (async () => {
    const times = [];
    // Each step alone: the key press, the render and the canvas drawn in its effect.
    for (const key of keys) {
      await frame();
      const t0 = performance.now();
      press(key);
      await idle();
      times.push(performance.now() - t0);
    }
    // The same steps, one per animation frame, as an animation would drive them.
    const f0 = performance.now();
    for (const key of keys) {
      await frame();
      press(key);
    }
    await frame();
    const fps = (keys.length * 1000) / (performance.now() - f0);
    times.sort((a, b) => a - b);
    const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
    return { p50: q(0.5), p95: q(0.95), max: times[times.length - 1], fps };
  })();
}

try {
  const { page, n } = await openWithScenario(ctx, url, file);
  const t0 = Date.now();
  await page.click('#run');
  const st = page.locator(`#status[data-run="${n + 1}"]:not([data-state="running"])`);
  await st.waitFor({ timeout: 1_800_000 });
  console.log(`run ${await st.getAttribute('data-state')} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${(await page.locator('#status').innerText()).trim()}`);
  // Zoom in 8 times and out again, then pan right and left: every step redraws.
  const keys = [...Array(8).fill('+'), ...Array(8).fill('-'), '+', '+', ...Array(10).fill('ArrowRight'), ...Array(10).fill('ArrowLeft'), '-', '-'];
  const report = (label, r) => console.log(`${label}: step p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms; ${r.fps.toFixed(0)} frames/s driven`);
  report('no task selected', await page.evaluate(steps, keys));
  const row = task
    ? page.locator('.variant-result').first().locator(`tr.task[data-task="${task}"]`)
    : page.locator('.variant-result').first().locator('tr.task').first();
  const name = await row.getAttribute('data-task');
  await row.click();
  await page.locator('.timeline-panel').focus();
  report(`task ${name} selected`, await page.evaluate(steps, keys));
  await page.keyboard.press('o');
  report(`task ${name} selected, overlay on`, await page.evaluate(steps, keys));
} finally {
  await close();
}
