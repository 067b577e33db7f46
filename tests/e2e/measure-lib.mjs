// What the measuring scripts (measure.mjs, measure-timeline.mjs) share: headless Chromium with
// a profile of its own, and the page opened with a scenario file in its JSON editor.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** Chromium (CHROMIUM or /usr/bin/chromium) with a fresh profile: { ctx, profile, close }. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'schedlab-measure-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
    viewport: { width: 1500, height: 1100 },
  });
  const close = async () => {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { ctx, profile, close };
}

/** Opens `url`, waits for its first run, puts `file`'s scenario in the editor; returns the
 * page and the number of the last run, so the caller's click on Run starts run n + 1. */
export async function openWithScenario(ctx, url, file) {
  const page = ctx.pages()[0] ?? await ctx.newPage();
  await page.goto(url);
  await page.locator('#status[data-state="done"]').waitFor({ timeout: 120_000 });
  await page.evaluate(() => { document.querySelector('details.json').open = true; });
  await page.locator('#scenario-json').fill(readFileSync(file, 'utf8'));
  await page.evaluate(() => { document.querySelector('details.json').open = false; });
  const n = Number(await page.locator('#status').getAttribute('data-run'));
  return { page, n };
}
