// The Chromium that the page tests and scripts/accuracy-plot.mjs drive: Debian's (or the one
// VTRAIN_CHROMIUM names), headless, without the sandbox, the GPU or any traffic of its own.
import { chromium } from 'playwright-core';

export const LAUNCH = {
  executablePath: process.env.VTRAIN_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
};

/** Starts that Chromium; resolves to playwright's Browser. */
export function launchChromium() {
  return chromium.launch(LAUNCH);
}
