// Every input of the Plan inputs: its section in the config, key, label, kind and help.
// The JSON pointer of a field is /section/key, which is how the simulator names it in errors.
// A choice's options are the simulator's: applySchema() fills them from its schema (catalog.js).
import { ZERO_STAGE_WORDS } from './choices.js';
import { nearestField } from './form.js';

const yesNo = [
  ['false', 'no'],
  ['true', 'yes'],
];

// How a field is named inside a message about another field ("must divide heads (96)").
const SHORT = {
  '/model/layers': 'layers', '/model/hidden': 'hidden size', '/model/heads': 'heads', '/model/kv_heads': 'KV heads',
  '/model/ffn_hidden': 'FFN hidden size', '/model/seq_len': 'sequence length', '/model/vocab': 'vocabulary',
  '/cluster/num_gpus': 'GPUs', '/cluster/gpus_per_node': 'GPUs per node', '/plan/tp': 'tp', '/plan/pp': 'pp',
  '/plan/dp': 'dp', '/plan/cp': 'cp', '/plan/micro_batch': 'micro-batch', '/plan/global_batch': 'global batch',
  '/plan/virtual_stages': 'virtual stages', '/plan/stage_layers': 'layers of each stage', '/plan/embedding_as_layer': 'embedding counted as a layer', '/plan/head_as_layer': 'head counted as a layer', '/training/tokens': 'training tokens',
};

export const SECTIONS = [
  { id: 'model', title: 'Model' },
  { id: 'cluster', title: 'Cluster' },
  { id: 'plan', title: 'Parallel plan' },
  { id: 'training', title: 'Training' },
];

// kind: int | number | select | bool | list (whole numbers separated by commas). `optional` number fields may be left empty (the profile's value).
// A select's options come from the schema: the enum its field names, the GPUs, or the whole
// numbers within its bounds (ZeRO's stage).
// `term` names the glossary entry (glossary.js) a "?" beside the label opens.
// `advanced` fields sit in a collapsed group of their section.
export const FIELDS = [
  { section: 'model', key: 'layers', label: 'Layers', kind: 'int' },
  { section: 'model', key: 'hidden', label: 'Hidden size', kind: 'int' },
  { section: 'model', key: 'heads', label: 'Attention heads', kind: 'int' },
  { section: 'model', key: 'kv_heads', label: 'KV heads', kind: 'int', help: 'fewer than heads: grouped-query attention' },
  { section: 'model', key: 'ffn_hidden', label: 'FFN hidden size', kind: 'int' },
  { section: 'model', key: 'seq_len', label: 'Sequence length', kind: 'int', unit: 'tokens' },
  { section: 'model', key: 'vocab', label: 'Vocabulary', kind: 'int', unit: 'entries' },
  { section: 'model', key: 'mlp', wide: true, label: 'MLP', kind: 'select' },
  { section: 'model', key: 'residual', wide: true, label: 'Attention and MLP', kind: 'select', advanced: true },
  { section: 'model', key: 'tied_embeddings', label: 'Tied embeddings', kind: 'bool', advanced: true },
  { section: 'model', key: 'norm', wide: true, label: 'Normalization', kind: 'select', advanced: true },
  { section: 'model', key: 'position', wide: true, label: 'Position embedding', kind: 'select', advanced: true },
  { section: 'model', key: 'rotary_fraction', wide: true, label: 'Rotary share of a head', kind: 'number', advanced: true, help: '1: the whole head; GPT-NeoX and GPT-J turn 0.25' },
  { section: 'model', key: 'bias', label: 'Biases', kind: 'bool', advanced: true },
  { section: 'model', key: 'head_dim', wide: true, label: 'Head width', kind: 'int', unit: 'elements', advanced: true, help: '0: hidden / heads' },
  { section: 'model', key: 'vocab_pad_multiple', wide: true, label: 'Vocabulary padding', kind: 'int', advanced: true, help: 'padded to a multiple of this × tp' },

  { section: 'cluster', key: 'gpu', wide: true, label: 'GPU', kind: 'select' },
  { section: 'cluster', key: 'num_gpus', label: 'GPUs', kind: 'int', help: '= tp × pp × dp' },
  { section: 'cluster', key: 'gpus_per_node', label: 'GPUs per node', kind: 'int' },
  { section: 'cluster', key: 'intra_node_GBps', wide: true, label: 'Intra-node bandwidth', kind: 'number', unit: 'GB/s', optional: true, help: 'per GPU, per direction' },
  { section: 'cluster', key: 'inter_node_Gbps', wide: true, label: 'Inter-node bandwidth', kind: 'number', unit: 'Gb/s', optional: true, help: 'per node, all NICs' },
  { section: 'cluster', key: 'price_per_gpu_hour_usd', wide: true, label: 'Price per GPU-hour', kind: 'number', unit: 'USD' },
  { section: 'cluster', key: 'gpu_speed_spread', wide: true, label: 'GPU speed spread', kind: 'number', optional: true, advanced: true, help: 'standard deviation of a GPU\'s speed over the mean, e.g. 0.015: every step waits for its slowest GPU' },

  { section: 'plan', key: 'tp', term: 'tp', label: 'Tensor parallel (tp)', kind: 'int' },
  { section: 'plan', key: 'pp', term: 'pp', label: 'Pipeline parallel (pp)', kind: 'int' },
  { section: 'plan', key: 'dp', term: 'dp', label: 'Data parallel (dp)', kind: 'int' },
  { section: 'plan', key: 'cp', label: 'Context parallel (cp)', kind: 'int', advanced: true, help: 'each sequence split over cp GPUs (long sequences); GPUs = tp × cp × pp × dp' },
  { section: 'plan', key: 'embedding_as_layer', label: 'Embedding counted as a layer', kind: 'bool', advanced: true, help: 'the pipeline split gives the embedding a layer\'s place: the first stage holds one layer fewer (Megatron-Core\'s account_for_embedding_in_pipeline_split, DeepSpeed\'s type:transformer|embedding)' },
  { section: 'plan', key: 'head_as_layer', label: 'Head counted as a layer', kind: 'bool', advanced: true, help: 'the same for the output layer and loss: the last stage holds one layer fewer' },
  { section: 'plan', key: 'stage_layers', wide: true, label: 'Layers of each stage', kind: 'list', optional: true, advanced: true, help: 'first to last, e.g. 14, 16, 16, 18 (an end stage may hold 0); empty: as even as the layers allow' },
  { section: 'plan', key: 'micro_batch', term: 'micro_batch', label: 'Micro-batch', kind: 'int', unit: 'sequences' },
  { section: 'plan', key: 'global_batch', term: 'global_batch', label: 'Global batch', kind: 'int', unit: 'sequences' },
  { section: 'plan', key: 'recompute', term: 'recompute', wide: true, label: 'Recomputation', kind: 'select' },
  { section: 'plan', key: 'virtual_stages', term: 'virtual_stages', wide: true, label: 'Virtual stages', kind: 'int', help: '> 1: interleaved 1F1B' },
  { section: 'plan', key: 'sequence_parallel', term: 'sequence_parallel', label: 'Sequence parallel', kind: 'bool' },
  { section: 'plan', key: 'zero_stage', term: 'zero', wide: true, label: 'ZeRO stage', kind: 'select' },
  { section: 'plan', key: 'zero_all_reduce', label: 'ZeRO-1 all-reduces gradients', kind: 'bool', advanced: true, help: 'whole, not reduce-scattered (DeepSpeed\'s bf16 optimizer)' },
  { section: 'plan', key: 'shard_group', label: 'Shard group (GPUs)', kind: 'int', advanced: true, help: 'ZeRO-3 / FSDP: GPUs one copy of the states is sharded over; 0: all of dp; fewer: hybrid sharding (HSDP), replicated across the groups' },
  { section: 'plan', key: 'shard_prefetch', label: 'Prefetch the next layer\'s gather', kind: 'bool', advanced: true, help: 'ZeRO-3 / FSDP: the next layer\'s all-gather beside this layer\'s compute' },
  { section: 'plan', key: 'reshard_after_forward', label: 'Reshard after forward', kind: 'bool', advanced: true, help: 'ZeRO-3 / FSDP: no keeps the gathered parameters for the backward (FSDP SHARD_GRAD_OP)' },
  { section: 'plan', key: 'recompute_gather', label: 'Recompute gathers again', kind: 'bool', advanced: true, help: 'ZeRO-3 with activation checkpointing: the recomputed forward gathers the layer\'s parameters once more (DeepSpeed)' },
  { section: 'plan', key: 'optimizer_offload', label: 'Offload the optimizer to the CPU', kind: 'bool', advanced: true, help: 'ZeRO stage 1 or more: optimizer states in host memory, Adam on the CPU, gradients and weights over PCIe (ZeRO-Offload)' },
  { section: 'plan', key: 'shard_flat_ring', label: 'Shard collectives as one flat ring', kind: 'bool', advanced: true, help: 'ZeRO-3 / FSDP: one ring over the shard group instead of node-aware collectives' },
  { section: 'plan', key: 'shard_device_sync', label: 'Synchronize the device before each layer', kind: 'bool', advanced: true, help: 'ZeRO-3: each layer waits for every collective in flight, its predecessor\'s reduce-scatter too (DeepSpeed ZeRO-3 v0.3.13 to v0.5.x)' },
  { section: 'plan', key: 'attention', wide: true, label: 'Attention', kind: 'select', advanced: true },
  { section: 'plan', key: 'dp_overlap', label: 'Overlap gradient reduction', kind: 'bool', advanced: true, help: 'with the last micro-batch\'s backward, in buckets of max(40 M, 1 M × dp) parameters (Megatron-Core\'s default)' },
  { section: 'plan', key: 'precision', wide: true, label: 'Precision', kind: 'select', advanced: true },
  { section: 'plan', key: 'placement', wide: true, label: 'Rank placement', kind: 'select', advanced: true, help: 'innermost first' },
  { section: 'plan', key: 'p2p_overlap', label: 'Overlap pipeline sends', kind: 'bool', advanced: true },
  { section: 'plan', key: 'tp_async_backward', label: 'Async TP backward', kind: 'bool', advanced: true, help: 'input-gradient collective beside the weight-gradient GEMM' },
  { section: 'plan', key: 'tp_comm_overlap', label: 'Overlap TP comm (userbuffers)', kind: 'bool', advanced: true, help: "with sequence parallelism: each tensor-parallel all-gather and reduce-scatter in chunks beside its GEMM, as NeMo's tp_comm_overlap" },
  { section: 'plan', key: 'grad_accumulation_fusion', label: 'Fused grad accumulation', kind: 'bool', advanced: true, help: 'no: a separate pass adds each micro-batch\'s gradients (Megatron-LM 2021, DeepSpeed)' },
  { section: 'plan', key: 'ep', term: 'ep', label: 'Expert parallel (ep)', kind: 'int', advanced: true, help: 'a mixture of experts: experts split over ep GPUs (docs/moe.md)' },
  { section: 'plan', key: 'etp', label: 'Expert tensor parallel', kind: 'int', advanced: true, help: '0: the same as tp' },
  { section: 'plan', key: 'moe_permute_sync', label: 'Host waits on token permutation', kind: 'bool', advanced: true, help: 'a mixture of experts: each MoE layer\'s permutation and unpermutation hold the host until the GPU gets there (Megatron-Core 0.10, docs/moe.md)' },
  { section: 'plan', key: 'grad_reduce_fp32', label: 'Gradients in fp32', kind: 'bool', advanced: true, help: 'no: accumulated and reduced in bf16' },
  { section: 'plan', key: 'fused_elementwise', label: 'Fused element-wise kernels', kind: 'bool', advanced: true, help: 'no: norms, rotary and SwiGLU as eager PyTorch\'s kernels (torchtitan without torch.compile)' },
  { section: 'plan', key: 'launch_blocking', label: 'Launch blocking', kind: 'bool', advanced: true, help: 'CUDA_LAUNCH_BLOCKING=1: the host waits for every kernel, nothing overlaps (BLOOM\'s run)' },

  { section: 'training', key: 'tokens', wide: true, label: 'Training tokens', kind: 'number', unit: 'tokens', help: 'e.g. 300e9' },
];

for (const f of FIELDS) {
  f.pointer = `/${f.section}/${f.key}`;
  f.id = `f-${f.section}-${f.key}`;
  if (f.kind === 'bool') {
    f.options = yesNo;
    f.wide = true;
  }
}

/**
 * Gives every select field its options from the simulator's schema (catalog.js): an enum field
 * its enum's choices, the GPU the bundled profiles, a whole-number field (the ZeRO stage) each
 * value within its bounds. `numeric` marks a field whose value is a number in the config.
 */
export function applySchema(catalog) {
  for (const f of FIELDS) {
    if (f.kind !== 'select') continue;
    const spec = catalog.schema.config[f.section]?.fields?.[f.key] || {};
    if (f.key === 'gpu') {
      f.options = catalog.profiles.map((p) => [p.name, p.display_name || p.name]);
    } else if (spec.enum) {
      f.options = catalog.choices(spec.enum);
    } else if (spec.type === 'integer' && Number.isInteger(spec.minimum) && Number.isInteger(spec.maximum)) {
      f.numeric = true;
      f.options = [];
      for (let v = spec.minimum; v <= spec.maximum; v++) f.options.push([String(v), ZERO_STAGE_WORDS[v] ? `${v} (${ZERO_STAGE_WORDS[v]})` : String(v)]);
    } else {
      f.options = [];
    }
  }
}

export const FIELD_BY_POINTER = new Map(FIELDS.map((f) => [f.pointer, f]));
export const FIELD_BY_KEY = new Map(FIELDS.map((f) => [f.key, f]));
export const MODEL_KEYS = FIELDS.filter((f) => f.section === 'model').map((f) => f.key);

/** The field an error pointer belongs to: /plan/tp, or the nearest field above a deeper pointer. */
export function fieldForPointer(pointer) {
  return nearestField(pointer, FIELD_BY_POINTER);
}

/** How field `pointer` is named inside a sentence: "hidden size", "tp". */
export function shortName(pointer) {
  return SHORT[pointer] || FIELD_BY_POINTER.get(pointer)?.label.toLowerCase() || pointer;
}

/**
 * A simulator message as shown beside its field: without the leading "/plan/tp: " and with other
 * fields' pointers replaced by their short names.
 */
export function fieldMessage(message, pointer) {
  let m = String(message || '');
  if (pointer && m.startsWith(`${pointer}: `)) m = m.slice(pointer.length + 2);
  else if (m.startsWith('/: ')) m = m.slice(3);
  m = m.replace(/\/(?:model|cluster|plan|training)\/[a-z_A-Z]+/g, (p) => SHORT[p] || (FIELD_BY_POINTER.get(p)?.label.toLowerCase() ?? p));
  m = m.replace(/ x /g, ' × ');
  return m.charAt(0).toUpperCase() + m.slice(1);
}
