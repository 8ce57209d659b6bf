// The inputs as a URL query, so a link reproduces a result:
//   ?model=gpt3-175b&gpu=a100-sxm4-80gb&num_gpus=1024&tp=8&pp=8&dp=16&...&tokens=300e9
// Model shape fields appear only where they differ from the named preset. Values stay the text
// the user typed; the simulator checks them when the link is opened.
import { FIELDS, MODEL_KEYS } from './fields.js';

export const VIEWS = ['plan', 'explore'];

/** {preset, values, view, embed} from a query string; `values` holds only what the query names. */
export function readQuery(search) {
  const q = new URLSearchParams(search);
  const values = {};
  for (const f of FIELDS) {
    if (q.has(f.key)) values[f.key] = q.get(f.key);
  }
  const view = VIEWS.includes(q.get('view')) ? q.get('view') : 'plan';
  return {
    preset: q.get('model') || null,
    values,
    view,
    embed: q.get('embed') === '1',
    hasInputs: q.has('model') || Object.keys(values).length > 0,
    // The Explore view's settings: which plans, the GPU budget, whether unfit plans are timed.
    explore: {
      space: q.get('space') || null,
      budget: q.get('budget'),
      unfit: q.has('unfit') ? q.get('unfit') !== '0' : null,
    },
  };
}

/** The query for the current inputs. `presetModel` is the preset's shape (strings), if any. */
export function writeQuery({ preset, values, view, embed, explore }, presetModel) {
  const q = new URLSearchParams();
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
  }
  return q.toString();
}
