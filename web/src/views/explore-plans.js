// An explored plan (a row of the explore result's `plans`), as the Explore view and its chart read it.

/** The fields that tell one plan from another in a sweep. */
export const PLAN_KEYS = ['tp', 'pp', 'dp', 'virtual_stages', 'micro_batch', 'recompute', 'sequence_parallel', 'zero_stage'];

export function samePlan(a, b) {
  return PLAN_KEYS.every((k) => a[k] === b[k]) && (a.cp ?? 1) === (b.cp ?? 1) && (a.shard_group ?? 0) === (b.shard_group ?? 0) && (a.ep ?? 1) === (b.ep ?? 1);
}

/** Whether the plan can run (timed, within GPU memory and within the GPU budget), as the simulator says. */
export function feasible(p) {
  return p.feasible;
}

/** Its status in words, as the table's column shows it. */
export function planStatus(p) {
  if (!p.within_gpu_limit) return 'over budget';
  if (!p.fits_in_memory) return 'does not fit';
  if (!p.simulated) return 'not timed';
  return p.pareto ? 'frontier' : 'fits';
}

/** Orders values, and arrays of them in turn; missing numbers (plans not timed) sort last. */
export function compare(a, b) {
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; i++) {
      const c = compare(a[i], b[i]);
      if (c) return c;
    }
    return 0;
  }
  const an = a == null || (typeof a === 'number' && !Number.isFinite(a));
  const bn = b == null || (typeof b === 'number' && !Number.isFinite(b));
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
