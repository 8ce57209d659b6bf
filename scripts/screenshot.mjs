// Draws docs/calculator.png, the README's picture of the calculator: the built page (build/web)
// served and opened in Debian's Chromium by the page tests' harness, on its default example
// (GPT-3 175B on 1,024 A100s), in the light scheme, once the Plan view's charts are drawn.
// `npm run screenshot` builds what is stale first; `node scripts/screenshot.mjs` uses build/web as it is.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { base, newPage, problems, startPage, stopPage } from '../tests/e2e/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs/calculator.png');
const viewport = { width: 1280, height: 1600 };

await startPage();
try {
  const page = await newPage(viewport);
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  // The harness's open(), with the patience of a busy machine.
  await page.goto(base);
  for (const ready of ['body[data-ready]', 'body[data-charts]', 'body[data-timeline]'])
    await page.waitForSelector(ready, { state: 'attached', timeout: 120000 });
  // Nothing left to draw: two frames after the charts said they are done.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  // From the top of the page to the end of the timeline of one iteration, the last of the Plan's charts.
  const box = await page.locator('figure:has(#chart-timeline)').boundingBox();
  const height = Math.min(viewport.height, Math.ceil(box.y + box.height + 8));
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: viewport.width, height } });
  await page.close();
  if (problems.length) throw new Error(`the page reported problems:\n${problems.join('\n')}`);
  console.log(`screenshot: ${path.relative(root, out)} (${viewport.width} x ${height})`);
} finally {
  await stopPage();
}
