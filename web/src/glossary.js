// The terms the page uses, each with a short definition: a "?" beside a term opens its definition
// in a small box (with a link to the whole glossary at the foot of the page), so that no figure or
// input is left unexplained. Definitions say what the simulator does, not what every framework does.
import { h } from './form.js';

/** The glossary, in reading order: {id, term, text}. */
export const TERMS = [
  {
    id: 'iteration', term: 'Iteration',
    text: 'One optimizer step: the forward and backward passes of the whole global batch, the gradients reduced across the data-parallel replicas, and the weights updated. Training time is the iteration time × the iterations (tokens ÷ (global batch × sequence length)).',
  },
  {
    id: 'mfu', term: 'MFU (model FLOPs utilization)',
    text: 'The FLOPs the model needs per second (forward and backward: about 6 × parameters per token, plus attention and logits) as a share of the GPUs’ peak. Recomputation is not counted: it is work the model itself does not need.',
  },
  {
    id: 'hfu', term: 'HFU (hardware FLOPs utilization)',
    text: 'Like MFU, but counting every FLOP the GPUs execute, recomputed forward passes included, so HFU ≥ MFU; they are equal without recomputation.',
  },
  {
    id: 'bubble', term: 'Pipeline bubble',
    text: 'Time a pipeline stage waits for work: at the start of an iteration the later stages wait for the first micro-batches, at the end the earlier ones wait for the last. With pp stages and m micro-batches it is about (pp − 1) ÷ m of the useful time under 1F1B; more micro-batches or virtual stages shrink it.',
  },
  {
    id: 'tp', term: 'Tensor parallelism (tp)',
    text: 'Each layer’s weight matrices are split over tp GPUs, which combine their partial results with all-reduces (two per layer in the forward pass, two in the backward). Fast within a node’s NVLink; across nodes the collectives cross the network.',
  },
  {
    id: 'pp', term: 'Pipeline parallelism (pp)',
    text: 'The layers are split into pp consecutive stages on different GPUs; micro-batches flow through them one after another (1F1B: one forward, one backward), sending activations from stage to stage. Costs the pipeline bubble.',
  },
  {
    id: 'dp', term: 'Data parallelism (dp)',
    text: 'dp replicas of the (tp × pp) model each take a share of the global batch; their gradients are averaged (all-reduced) once per iteration. GPUs = tp × pp × dp.',
  },
  {
    id: 'ep', term: 'Expert parallelism (ep)',
    text: 'In a mixture of experts, each MoE layer’s experts are split over ep GPUs, carved out of the tp × dp GPUs of a pipeline stage; every token is sent to the GPUs of the experts its router picks and back (two all-to-alls per layer in each pass). The experts’ gradients are averaged over the tp × dp ÷ (etp × ep) GPUs that hold the same experts. A dense model has ep 1.',
  },
  {
    id: 'micro_batch', term: 'Micro-batch',
    text: 'The sequences one GPU runs through a forward and a backward pass at a time. Each replica runs global batch ÷ (dp × micro-batch) micro-batches per iteration.',
  },
  {
    id: 'global_batch', term: 'Global batch',
    text: 'The sequences of one iteration (one optimizer step), over all replicas.',
  },
  {
    id: 'recompute', term: 'Recomputation',
    text: 'Activations kept for the backward pass take memory; recomputation drops them and runs the forward pass again during the backward. Full: every layer’s forward again (about a third more compute, least memory). Selective: only the attention scores (softmax and dropout), which are large but cheap to recompute. With flash attention the scores are never stored, so selective recomputes nothing and is the same as none.',
  },
  {
    id: 'virtual_stages', term: 'Virtual stages (interleaved 1F1B)',
    text: 'Each GPU holds several non-adjacent chunks of layers instead of one block, which divides the pipeline bubble by the virtual stages, for more pipeline sends. Needs the layers divisible by pp × virtual stages.',
  },
  {
    id: 'sequence_parallel', term: 'Sequence parallelism',
    text: 'With tp > 1, the parts of a layer outside its matrices (norms, dropout) are split along the sequence over the tp GPUs, so their activations take 1/tp of the memory; its collectives replace tp’s all-reduces. At tp 1 it changes nothing.',
  },
  {
    id: 'zero', term: 'ZeRO stage 1',
    text: 'The optimizer states (Adam’s two moments and fp32 master weights, 12 bytes per parameter) are sharded over the dp replicas instead of copied on each: each replica updates its shard, then the weights are gathered. At dp 1 it changes nothing.',
  },
  {
    id: 'frontier', term: 'Time–cost frontier',
    text: 'The plans no other plan beats on both training time and cost (the Pareto frontier): moving along it trades days for dollars. Every other plan is slower and dearer than one of them.',
  },
  {
    id: 'gpu_hours', term: 'GPU-hours',
    text: 'GPUs × hours of training; the cost is the GPU-hours × the price per GPU-hour.',
  },
  {
    id: 'flop_only', term: 'FLOP-only answer',
    text: 'The scaling law’s compute-optimal size if the GPUs ran at their peak (compute = 6 × parameters × tokens): what a budget buys on paper. The achievable answer gives each candidate size its best simulated plan instead.',
  },
];

const BY_ID = new Map(TERMS.map((t) => [t.id, t]));

/** The "?" beside a term: a button that opens its definition. */
export function termButton(id) {
  const t = BY_ID.get(id);
  if (!t) throw new Error(`no glossary term ${id}`);
  return h('button', {
    type: 'button', class: 'term', 'data-term': id, 'aria-label': `What is ${t.term.replace(/ \(.*\)$/, '')}?`,
    'aria-expanded': 'false', 'aria-controls': 'term-tip', text: '?',
  });
}

/** The whole glossary, as a definition list, into `box` (each entry #term-<id>). */
export function renderGlossary(box) {
  const dl = h('dl', { class: 'glossary-list' });
  for (const t of TERMS) dl.append(h('dt', { id: `term-${t.id}`, text: t.term }), h('dd', { text: t.text }));
  box.append(dl);
}

/**
 * Opens a definition beside any "?" clicked on the page (one box, #term-tip), closed by another
 * click, Escape or a click elsewhere; its link opens the glossary at the term.
 */
export function wireGlossary({ tip, glossary }) {
  let owner = null;
  const close = () => {
    if (!owner) return;
    owner.setAttribute('aria-expanded', 'false');
    owner = null;
    tip.hidden = true;
  };
  const openAt = (button) => {
    const t = BY_ID.get(button.dataset.term);
    if (owner) owner.setAttribute('aria-expanded', 'false');
    owner = button;
    button.setAttribute('aria-expanded', 'true');
    tip.textContent = '';
    tip.append(
      h('strong', { text: t.term }), ' ', t.text, ' ',
      h('a', { href: `#term-${t.id}`, class: 'term-all', text: 'All terms ↓', onclick: () => { glossary.open = true; close(); } }),
    );
    tip.hidden = false;
    // Under the button, inside the screen.
    const b = button.getBoundingClientRect();
    const width = Math.min(340, document.documentElement.clientWidth - 16);
    tip.style.width = `${width}px`;
    tip.style.left = `${Math.max(8, Math.min(b.left + window.scrollX - 12, window.scrollX + document.documentElement.clientWidth - width - 8))}px`;
    tip.style.top = `${b.bottom + window.scrollY + 6}px`;
  };
  document.addEventListener('click', (e) => {
    const button = e.target.closest && e.target.closest('button.term');
    if (button) {
      e.preventDefault();
      e.stopPropagation();
      if (owner === button) close();
      else openAt(button);
      return;
    }
    if (owner && !tip.contains(e.target)) close();
  }, true);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && owner) {
      const b = owner;
      close();
      b.focus();
    }
  });
  // A link to a term (#term-mfu) opens the glossary.
  const openFromHash = () => {
    if (location.hash.startsWith('#term-')) glossary.open = true;
  };
  window.addEventListener('hashchange', openFromHash);
  openFromHash();
}

/** termButton(id) as HTML, for a view's markup. */
export function termHtml(id) {
  const t = BY_ID.get(id);
  if (!t) throw new Error(`no glossary term ${id}`);
  return `<button type="button" class="term" data-term="${id}" aria-label="What is ${t.term.replace(/ \(.*\)$/, '')}?" aria-expanded="false" aria-controls="term-tip">?</button>`;
}
