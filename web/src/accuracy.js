// What a profile's accuracy record says about runs like a result's plan, in the words both the
// Plan view and the embed card use: the short form (mean error per set of runs) and the long one
// (which runs, how many, how large).
import * as fmt from './format.js';

const off = (a) => fmt.percent(a.mape_percent / 100);
const range = ([lo, hi]) => (lo === hi ? lo.toLocaleString('en-US') : `${lo.toLocaleString('en-US')} to ${hi.toLocaleString('en-US')}`);
const span = (a) => {
  const parts = [a.gpus ? `${range(a.gpus)} GPUs` : '', a.hidden ? `hidden ${range(a.hidden)}` : ''].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
};

/**
 * "Mean error 2.9 % on published Megatron-LM runs, 11.6 % on DeepSpeed, 2.7 % on
 * Megatron-DeepSpeed": every set of runs the result's record (accuracy, accuracy_also) names.
 */
export function accuracyShort(r) {
  const acc = r.accuracy;
  if (!acc) return '';
  if (acc.set === 'published') {
    const also = (r.accuracy_also || []).map((a) => `${off(a)} on ${a.framework}`);
    return `Mean error ${off(acc)} on published ${acc.framework} runs${also.length ? `, ${also.join(', ')}` : ''}`;
  }
  return `Mean error ${off(acc)} on measured runs ${acc.set === 'single-node' ? 'on one node' : 'across nodes'}`;
}

/** The runs behind accuracyShort(r): how many, how large, and whether a fit saw them. */
export function accuracyNote(r) {
  const acc = r.accuracy;
  if (!acc) return '';
  if (acc.set === 'published') {
    // Where the records differ in whether a fit saw their runs, each says which it is.
    const seen = (a) => (a.never_fitted ? 'which no fit saw' : a.held_out ? 'each predicted by a fit that had not seen it' : 'which it was fitted to');
    const mixed = (r.accuracy_also || []).some((a) => seen(a) !== seen(acc));
    const also = (r.accuracy_also || [])
      .map((a) => ` On ${a.measured_runs} published ${a.framework} runs${span(a)}${mixed ? `, ${seen(a)}` : ''}, by ${off(a)}.`)
      .join('');
    // Published runs kept as checks (never_fitted) stand beside a calibration the plan outgrew or
    // whose runs are of another kind of model (dense, where the plan is a mixture of experts), or,
    // for a projected profile, beside none; the H100's published runs are its calibration.
    if (!acc.never_fitted)
      return `On ${acc.measured_runs} published ${acc.framework} runs${span(acc)}, this profile's iteration times were off by ${off(acc)} on average (${acc.held_out ? 'each predicted by a fit that had not seen it' : 'the runs it was fitted to'}).${also}`;
    const beyond = r.profile_kind !== 'calibrated' ? ''
      : acc.moe ? 'The calibration runs are of dense models; these are mixtures of experts, as this plan is. '
      : 'This plan is larger than the calibration runs. ';
    return `${beyond}On ${acc.measured_runs} published ${acc.framework} runs${span(acc)}, which no fit saw, this profile's iteration times were off by ${off(acc)} on average.${also}`;
  }
  const kind = acc.set === 'single-node' ? 'runs on one node' : 'runs across nodes';
  return `On ${acc.measured_runs} measured ${kind}${span(acc)}, this profile's iteration times were off by ${off(acc)} on average (${acc.held_out ? 'each predicted by a fit that had not seen it' : 'the runs it was fitted to'}).`;
}
