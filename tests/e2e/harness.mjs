// What the page tests share: the built page (build/web) served by Vite's preview server on a free
// port, Debian's Chromium (scripts/chromium.mjs), pages that collect console errors and exceptions,
// and screenshots under build/screenshots. The timings are measure.mjs's, their floors floors.mjs's.
// Not a test file itself: node --test runs only the *.test.mjs files beside it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { launchChromium } from '../../scripts/chromium.mjs';

export { runCli } from '../../scripts/golden.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const webDir = path.join(root, 'build/web');
export const shots = path.join(root, 'build/screenshots');

let server;
let browser;
/** The served page's address, "http://127.0.0.1:PORT/", once startPage() has run. */
export let base;
/** Console errors and uncaught exceptions, from every page. */
export const problems = [];

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Serves build/web on a free port and starts Chromium; for a test file's before(). */
export async function startPage() {
  assert.ok(existsSync(path.join(webDir, 'index.html')), 'build/web is missing: run vite build first');
  mkdirSync(shots, { recursive: true });
  const port = await freePort();
  server = await preview({
    configFile: path.join(root, 'web/vite.config.js'),
    preview: { port, strictPort: true, host: '127.0.0.1', open: false },
    logLevel: 'warn',
  });
  base = `http://127.0.0.1:${port}/`;
  browser = await launchChromium();
}

/** Closes Chromium and the server; for a test file's after(). */
export async function stopPage() {
  if (browser) await browser.close();
  if (server) await server.close();
}

/** A new tab whose console errors and exceptions go to `problems`. */
export async function newPage(viewport = { width: 1400, height: 1000 }) {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  return page;
}

/** Opens the page with `query` ("?view=…") and waits until it is ready. */
export async function open(page, query = '') {
  await page.goto(`${base}${query}`);
  await page.waitForSelector('body[data-ready]', { timeout: 15000 });
}

/** Text without white space, to compare numbers whatever spaces the page puts in them. */
export const plain = (s) => s.replace(/\s+/g, '');

export async function assertNoBadText(page) {
  const text = await page.evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, /\bNaN\b|Infinity|undefined|\[object|Error:/);
}

/**
 * Clicks `click` in the page and follows the run of `view` (explore or optimal) until body's
 * data-<view> settles. Resolves to the ms that took, every value of the view's progress bar with
 * whether the bar was on screen, and the final state and status line; with `charts` (the body
 * attribute the view sets once its charts are drawn) also the ms until that attribute changed.
 */
export function trackRun(page, { view, click, charts = null }) {
  return page.evaluate(async ({ view, click, charts }) => {
    const bar = document.getElementById(`${view}-progress`);
    const wrap = document.getElementById(`${view}-progress-wrap`);
    const seen = [];
    const o = new MutationObserver(() => seen.push({ value: bar.value, visible: !wrap.hidden && wrap.offsetHeight > 0 }));
    o.observe(bar, { attributes: true, attributeFilter: ['value'] });
    const t0 = performance.now();
    // The ms from t0 until body's attribute `attr` passes `ok`.
    const until = (attr, ok) => new Promise((resolve) => {
      const d = new MutationObserver(() => {
        if (ok(document.body.getAttribute(attr))) {
          d.disconnect();
          resolve(performance.now() - t0);
        }
      });
      d.observe(document.body, { attributes: true, attributeFilter: [attr] });
    });
    const drawnBefore = charts && document.body.getAttribute(charts);
    const done = until(`data-${view}`, (s) => s === 'done' || s === 'stopped' || s === 'invalid');
    const drawn = charts ? until(charts, (v) => v !== drawnBefore) : null;
    document.querySelector(click).click();
    const ms = await done;
    const chartsMs = drawn ? await drawn : null;
    o.disconnect();
    return { ms, chartsMs, seen, state: document.body.dataset[view], status: document.getElementById(`${view}-status`).textContent };
  }, { view, click, charts });
}

/**
 * Clicks `click` in the page and presses #<view>-cancel once the view's progress bar reports `at`
 * or more (without `at`, anything above 0), from inside the page so that a fast run cannot finish
 * first. Resolves to the state body's data-<view> then settles in ('stopped' or 'done') and the
 * longest the page's thread went without running a 10 ms timer until the cancel.
 */
export function cancelRun(page, { view, click, at = null }) {
  return page.evaluate(async ({ view, click, at }) => {
    let last = performance.now();
    let worst = 0;
    let ticking = true;
    const tick = () => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
      if (ticking) setTimeout(tick, 10);
    };
    const bar = document.getElementById(`${view}-progress`);
    const o = new MutationObserver(() => {
      if (at == null ? bar.value > 0 : bar.value >= at) {
        o.disconnect();
        ticking = false;
        document.getElementById(`${view}-cancel`).click();
      }
    });
    o.observe(bar, { attributes: true, attributeFilter: ['value'] });
    const settled = new Promise((resolve) => {
      const d = new MutationObserver(() => {
        const s = document.body.dataset[view];
        if (s === 'stopped' || s === 'done') {
          d.disconnect();
          resolve(s);
        }
      });
      d.observe(document.body, { attributes: true, attributeFilter: [`data-${view}`] });
    });
    document.querySelector(click).click();
    last = performance.now();
    setTimeout(tick, 10);
    const state = await settled;
    ticking = false;
    return { state, worst };
  }, { view, click, at });
}

/** Saves a screenshot of `page` as build/screenshots/<name>; `options` as page.screenshot takes them. */
export function screenshot(page, name, options = {}) {
  return page.screenshot({ path: path.join(shots, name), ...options });
}
