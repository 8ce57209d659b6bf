// The page's wall-clock floors. `npm run bench` (scripts/bench.mjs) measures each in Chromium and
// fails when one is missed; the page tests hold only SANITY times each, which a slow machine busy
// with other work still meets, so that a timing never fails the test suite.
// Not a test file itself: node --test runs only the *.test.mjs files beside it.

/** Each floor: the most it may take, and what is timed. */
export const FLOORS = {
  interactive_ms: { floor: 2000, unit: 'ms', what: 'page interactive after load' },
  charts_on_load_ms: { floor: 1000, unit: 'ms', what: 'every Plan chart after the first numbers' },
  charts_on_preset_ms: { floor: 1000, unit: 'ms', what: 'every Plan chart after a preset\'s numbers (worst median)' },
  simulate_ms: { floor: 50, unit: 'ms', what: 'one preset simulated in the page (worst median)' },
  sweep_ms: { floor: 1000, unit: 'ms', what: 'MT-NLG sweep in the page (294 plans)' },
  optimal_ms: { floor: 5000, unit: 'ms', what: 'compute-optimal case study, click to answer' },
  main_thread_gap_ms: { floor: 500, unit: 'ms', what: 'longest pause of the page\'s thread while sizing' },
  cluster_128_ms: { floor: 5000, unit: 'ms', what: '128 jobs on 1,024 GPUs, four policies, click to table' },
};

/** A test's limit: this many times the floor. */
export const SANITY = 10;

/** The limit a test holds `key` to. */
export const sanity = (key) => FLOORS[key].floor * SANITY;

/** Sizes are not timings: the test suite holds them to their floor. */
export const SIZE_FLOORS = {
  wasm_gzip_bytes: 300 * 1000,
  plotly_gzip_bytes: 450 * 1000,
};
