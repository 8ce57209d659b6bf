// The page's own words for some of the simulator's choices, by the simulator's name for each.
// Which choices there are is the simulator's: the page lists the schema's enums and registries
// (catalog.js) and takes words from here where it has some, the schema's label where not, so that
// a choice the simulator gains shows up without an edit here.

/** ZeRO's stages (/plan/zero_stage, a whole number within the schema's bounds) in a few words. */
export const ZERO_STAGE_WORDS = { 0: 'replicated', 1: 'sharded optimizer', 2: 'and gradients', 3: 'and parameters' };

/**
 * explore.objective: what "best" means in a sweep, as its option, a card's title and within a
 * sentence. The page's default is balanced (a planner's choice, not an extreme).
 */
export const OBJECTIVES = {
  balanced: { option: 'balanced: cheapest within a quarter more days than the fastest', card: 'Balanced plan', short: 'the cheapest within a quarter more days than the fastest' },
  cost: { option: 'cheapest, however long it takes', card: 'Cheapest plan', short: 'the cheapest' },
  time: { option: 'fastest', card: 'Fastest plan', short: 'the fastest' },
  deadline: { option: 'cheapest within a deadline', card: 'Cheapest within the deadline', short: 'the cheapest within the deadline' },
  expected_time: { option: 'fewest expected days, failures and checkpoints counted', card: 'Fewest expected days', short: 'the fewest expected days' },
};

/** The simulator's schedule case (`vtrain schedule --case`) and the workload sizes the page offers (its first N jobs). */
export const SCHEDULE_CASE = { name: 'vtrain-case2', jobs: [64, 128, 195], label: 'vTrain case study 2 (ITP trace)' };

/**
 * The synthetic generator's model mixes (/workload/generate/mix): each a label and its entries
 * {model, global_batch, gpus, weight}, or none for the simulator's default, the ITP trace's mix.
 * Batches in sequences: GPT-3's of Brown et al. 2020 (table 2.1), Llama 2's 4 M tokens.
 */
export const GENERATOR_MIXES = {
  itp: { label: 'the ITP trace’s (mostly GPT-3 2.7B)' },
  small: {
    label: 'GPT-3 2.7B and 6.7B: half each',
    entries: [
      { model: 'gpt3-2.7b', global_batch: 512, gpus: 8, weight: 1 },
      { model: 'gpt3-6.7b', global_batch: 1024, gpus: 16, weight: 1 },
    ],
  },
  gpt3: {
    label: 'GPT-3 2.7B, 6.7B, 175B: a third each',
    entries: [
      { model: 'gpt3-2.7b', global_batch: 512, gpus: 8, weight: 1 },
      { model: 'gpt3-6.7b', global_batch: 1024, gpus: 16, weight: 1 },
      { model: 'gpt3-175b', global_batch: 1536, gpus: 128, weight: 1 },
    ],
  },
  llama: {
    label: 'Llama 2 7B, 13B, 70B: a third each',
    entries: [
      { model: 'llama2-7b', global_batch: 1024, gpus: 32, weight: 1 },
      { model: 'llama2-13b', global_batch: 1024, gpus: 64, weight: 1 },
      { model: 'llama2-70b', global_batch: 1024, gpus: 256, weight: 1 },
    ],
  },
};

/** The scheduling policies (/policies) in the page's words; the simulator runs every one it has. */
export const POLICY_NOTES = {
  fifo: 'each job the GPUs and plan it asks for, in arrival order',
  edf: 'the same, earliest deadline first',
  'elasticflow-dp': 'ElasticFlow: admission control and resizing, each job scaled by data parallelism',
  'elasticflow-vtrain': 'the same, each job running the best plan for the GPUs it holds',
};

/** A compute-optimal request's budget, by kind (its key under /budget), in the page's words. */
export const BUDGETS = {
  days: { label: 'days on the cluster', unit: 'days', help: 'wall-clock time on up to the GPUs below' },
  usd: { label: 'dollars', unit: 'USD', help: 'GPU-hours at the price below; e.g. 10M' },
  gpu_hours: { label: 'GPU-hours', unit: 'GPU-hours', help: 'e.g. 2M; their cost at the price below' },
  flops: { label: 'FLOPs at the GPUs’ peak', unit: 'FLOP', help: 'e.g. 1e24, spent on all the GPUs below' },
};

/**
 * A money budget's plan per candidate size (/explore/objective): the objectives that rank one
 * size's plans by money alone, in the page's words; the first is the page's default.
 */
export const PLAN_RULES = [
  ['balanced', 'balanced: cheapest within a quarter more days than its fastest'],
  ['cost', 'cheapest, however long it takes'],
];
