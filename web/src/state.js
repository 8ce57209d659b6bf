// The inputs as a URL query, so a link reproduces a result:
//   ?model=gpt3-175b&gpu=a100-sxm4-80gb&num_gpus=1024&tp=8&pp=8&dp=16&...&tokens=300e9
// Model shape fields appear only where they differ from the named preset. Values stay the text
// the user typed; the simulator checks them when the link is opened.
//
// The Compute-optimal view has inputs of its own, named as in its request:
//   ?view=optimal&days=30&gpu=a100-sxm4-80gb&num_gpus=3360&...&scaling=ratio&tokens_per_param=20
// Its link holds only those (the Plan view's inputs do not change its answer).
import { FIELDS, MODEL_KEYS } from './fields.js';

export const VIEWS = ['plan', 'explore', 'optimal'];

// The Compute-optimal view's keys: the budget is one of the first four.
export const BUDGET_KINDS = ['days', 'usd', 'gpu_hours', 'flops'];
export const OPTIMAL_KEYS = ['deadline_days', 'gpu', 'num_gpus', 'gpus_per_node', 'price_per_gpu_hour_usd', 'seq_len', 'global_batch', 'family',
  'scaling', 'tokens_per_param', 'loss_fit', 'E', 'A', 'B', 'alpha', 'beta'];

/** {preset, values, view, embed, explore, optimal} from a query string; `values` holds only what the query names. */
export function readQuery(search) {
  const q = new URLSearchParams(search);
  const view = VIEWS.includes(q.get('view')) ? q.get('view') : 'plan';
  // What the link names that this page does not know: said, never silently replaced.
  const ignored = q.has('view') && view !== q.get('view') ? [['view', q.get('view')]] : [];
  const embed = q.get('embed') === '1';
  if (view === 'optimal' && !embed) {
    const optimal = {};
    for (const kind of BUDGET_KINDS) {
      if (q.has(kind) && optimal.budget_kind == null) {
        optimal.budget_kind = kind;
        optimal.budget = q.get(kind);
      }
    }
    for (const k of OPTIMAL_KEYS) if (q.has(k)) optimal[k] = q.get(k);
    return { preset: null, values: {}, view, embed, hasInputs: false, explore: {}, optimal, ignored };
  }
  const values = {};
  for (const f of FIELDS) {
    if (q.has(f.key)) values[f.key] = q.get(f.key);
  }
  return {
    preset: q.get('model') || null,
    values,
    view: embed && view === 'optimal' ? 'plan' : view,
    embed,
    hasInputs: q.has('model') || Object.keys(values).length > 0,
    // The Explore view's settings: which plans, the GPU budget, whether unfit plans are timed, the objective.
    explore: {
      space: q.get('space') || null,
      budget: q.get('budget'),
      unfit: q.has('unfit') ? q.get('unfit') !== '0' : null,
      objective: q.get('objective'),
      deadline: q.get('deadline'),
    },
    optimal: {},
    ignored,
  };
}

/** The query for the current inputs. `presetModel` is the preset's shape (strings), if any. */
export function writeQuery({ preset, values, view, embed, explore, optimal }, presetModel) {
  const q = new URLSearchParams();
  if (view === 'optimal' && !embed && optimal) {
    q.set('view', 'optimal');
    if (BUDGET_KINDS.includes(optimal.budget_kind) && optimal.budget) q.set(optimal.budget_kind, optimal.budget);
    for (const k of OPTIMAL_KEYS) {
      const v = optimal[k];
      if (v != null && v !== '') q.set(k, v);
    }
    return q.toString();
  }
  if (embed) q.set('embed', '1');
  q.set('model', preset || 'custom');
  for (const f of FIELDS) {
    const v = values[f.key];
    if (v == null || v === '') continue;
    if (f.section === 'model' && presetModel && MODEL_KEYS.includes(f.key) && presetModel[f.key] === v) continue;
    q.set(f.key, v);
  }
  if (view && view !== 'plan') q.set('view', view);
  if (explore) {
    if (explore.space && explore.space !== 'grid') q.set('space', explore.space);
    if (explore.budget) q.set('budget', explore.budget);
    if (explore.unfit === false) q.set('unfit', '0');
    if (explore.objective && explore.objective !== 'cost') q.set('objective', explore.objective);
    if (explore.objective === 'deadline' && explore.deadline) q.set('deadline', explore.deadline);
  }
  return q.toString();
}
