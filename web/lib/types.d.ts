// The documents vtrain's calls take and return, as the WebAssembly module writes them (the same
// as the command line's --json). Every number carries its unit in its name or its comment.
// tests/js/package.test.mjs checks real results against these declarations, key by key.

// ---------------------------------------------------------------- names

/** The MLP block: GeLU (two GEMMs) or SwiGLU (gated, three GEMMs). */
export type Mlp = 'gelu' | 'swiglu' | 'geglu';
/** Attention then MLP, or both from the same input (one norm: GPT-J, PaLM; two: GPT-NeoX). */
export type Residual = 'sequential' | 'parallel' | 'parallel_two_norms';
export type Norm = 'layernorm' | 'rmsnorm';
export type PositionEmbedding = 'learned' | 'rope' | 'alibi';
/** Activation recomputation: none, the attention core only (selective), or whole layers (full). */
export type Recompute = 'none' | 'selective' | 'full';
/** Attention kernels: fused (flash) or unfused. */
export type Attention = 'flash' | 'unfused' | 'triton';
export type Precision = 'bf16' | 'fp16' | 'fp8';
/** A GPU profile's provenance.kind: fitted to measured runs, projected by rules, measured by vtrain-profile, or synthetic (a test's). */
export type ProfileKind = 'calibrated' | 'projected' | 'measured' | 'synthetic';
/** Rank placement, innermost first: tensor, then data, then pipeline parallel (or pipeline before data). */
export type Placement = 'tp-dp-pp' | 'tp-pp-dp';
/** How a MoE layer's router scores its experts. */
export type Router = 'softmax' | 'sigmoid';

/** A mixture of experts' expert layers (docs/moe.md). */
export interface Moe {
  /** Routed experts of a MoE layer (count). */
  experts: number;
  /** Experts each token is routed to, top-k (count). */
  experts_per_token: number;
  /** One routed expert's MLP width (elements). */
  expert_ffn_hidden: number;
  /** Experts every token passes through (count). */
  shared_experts: number;
  /** One shared expert's width (elements); 0: expert_ffn_hidden. */
  shared_expert_ffn_hidden: number;
  /** Leading dense layers (count). */
  first_dense_layers: number;
  /** Every Nth layer after those is a MoE layer (count). */
  layer_frequency: number;
  router: Router;
  /** Each expert's input padded to this multiple of its mean load (ratio); 0: dropless. */
  capacity_factor: number;
}
/**
 * What "best" means in a sweep: cheapest, fastest, cheapest within explore.deadline_days, or
 * balanced (the cheapest within time_slack, 25 %, more days than the fastest).
 */
export type Objective = 'cost' | 'time' | 'deadline' | 'balanced' | 'expected_time';
/** A compute-optimal request's model family: GPT (GeLU, learned positions) or Llama (SwiGLU, RoPE, GQA). */
export type Family = 'gpt' | 'llama';
/** A timeline block's work. */
export type BlockKind = 'forward' | 'recompute' | 'backward' | 'pp_send' | 'dp_comm' | 'embedding_comm' | 'optimizer' | 'shard_comm';
/** What a result notes about its config beyond the numbers. */
export type WarningCode = 'uneven_stages' | 'no_effect' | 'tp_across_nodes' | 'out_of_memory' | 'timeline_omitted' | 'overlap_slower' | 'beyond_real_run';

// ---------------------------------------------------------------- errors

/** One problem with an input: a stable code, the JSON pointer of the field ('' for the whole input) and a sentence. */
export interface Diagnostic {
  /** e.g. "divisibility", "range", "missing", "unknown_preset", "too_large", "cancelled", "internal". */
  code: string;
  /** The field, e.g. "/plan/tp". */
  pointer: string;
  /** For a reader, e.g. "/plan/tp: must divide /model/heads (96)". */
  message: string;
}

// ---------------------------------------------------------------- simulate: the config

/** A model's shape, every field explicit (as results and presets give it). */
export interface Model {
  /** Preset name, or "custom". */
  name: string;
  /** Transformer layers (count). */
  layers: number;
  /** Hidden size (elements). */
  hidden: number;
  /** Attention heads (count). */
  heads: number;
  /** Key-value heads (count); fewer than heads: grouped-query attention. */
  kv_heads: number;
  /** Width of one attention head (elements); 0: hidden / heads. */
  head_dim: number;
  /** Sequence length (tokens). */
  seq_len: number;
  /** Vocabulary (entries). */
  vocab: number;
  /** MLP hidden size (elements). */
  ffn_hidden: number;
  mlp: Mlp;
  residual: Residual;
  /** Whether the output layer shares the embedding's weights. */
  tied_embeddings: boolean;
  norm: Norm;
  position: PositionEmbedding;
  /** Rotary: the share of each head's width it turns (0, 1]. */
  rotary_fraction: number;
  /** Whether linear layers have biases. */
  bias: boolean;
  /** The vocabulary is padded to a multiple of this × tp (entries). */
  vocab_pad_multiple: number;
  /** Present for a mixture of experts; absent or null: dense. */
  moe?: Moe | null;
  /** Multi-head latent attention (DeepSeek-V2/V3); absent: multi-head or grouped-query attention. */
  mla?: Mla | null;
}

/** Multi-head latent attention's ranks and head widths (elements). */
export interface Mla {
  /** Query bottleneck; 0: a plain query projection. */
  q_lora_rank: number;
  kv_lora_rank: number;
  qk_nope_head_dim: number;
  qk_rope_head_dim: number;
  v_head_dim: number;
}

/** A model as an input: a preset's fields over which the given ones apply, or a shape (layers, hidden, heads at least). */
export interface ModelInput extends Partial<Model> {
  /** Starts from this model preset (presets().models). */
  preset?: string;
}

/** The cluster, as results give it. */
export interface Cluster {
  /** GPU profile name (profiles()), e.g. "a100-sxm4-80gb". */
  gpu: string;
  /** GPUs (count); equals tp × pp × dp. */
  num_gpus: number;
  /** GPUs per node (count). */
  gpus_per_node: number;
  /** Per GPU, per direction (GB/s); absent: the profile's. */
  intra_node_GBps?: number;
  /** Per node, all NICs (Gb/s); absent: the profile's. */
  inter_node_Gbps?: number;
  /** Price of one GPU-hour (USD); 0: no cost. */
  price_per_gpu_hour_usd: number;
  /** Standard deviation of a GPU's compute time over the mean (fraction); absent: the profile's. */
  gpu_speed_spread?: number;
  /** The fabric between the nodes (docs/large-scale.md). */
  network: Network;
}

export type Topology = 'flat' | 'leaf_spine' | 'clos3';
export type NetAlgorithm = 'auto' | 'ring' | 'tree';

/** The network between the nodes; defaults: a DGX A100 SuperPOD (today's model). */
export interface Network {
  topology: Topology;
  /** Nodes whose NICs of one rail share a leaf switch (count). */
  nodes_per_leaf: number;
  /** clos3: nodes under one spine group (count). */
  nodes_per_pod: number;
  /** A leaf's downlink over uplink bandwidth (ratio); 1: non-blocking. */
  oversubscription: number;
  /** clos3: a pod's spines, what they receive over what they send up to the core (ratio); 1: non-blocking. */
  core_oversubscription: number;
  /** Latency of each switch beyond the leaf (us). */
  hop_latency_us: number;
  /** In-network reduction (SHARP). */
  sharp: boolean;
  algorithm: NetAlgorithm;
}

/** Failures, restarts and checkpoints: the expected days of a run (docs/large-scale.md). */
export interface Reliability {
  /** Unexpected interruptions per GPU-hour (1/h); default Llama 3 405B's. */
  failures_per_gpu_hour: number;
  /** Mean time between failures of a node (h); > 0 replaces the rate. */
  node_mtbf_hours: number;
  /** From a failure to training again (min). */
  restart_minutes: number;
  /** One checkpoint (GB); 0: 14 bytes a parameter. */
  checkpoint_GB: number;
  /** Aggregate write bandwidth of the checkpoint storage (GB/s). */
  storage_GBps: number;
  /** Training between checkpoints (min); 0: the optimal interval. */
  checkpoint_interval_minutes: number;
}

/** A run's expected days against its ideal days; parts add up to expected - ideal. */
export interface Goodput {
  ideal_days: number;
  /** Null when failures come faster than the run progresses. */
  expected_days: number | null;
  /** (expected - ideal) / expected (fraction). */
  lost_share: number;
  parts_days: { checkpoint_days: number | null; lost_work_days: number | null; restart_days: number | null };
  /** Expected failures during the run (count). */
  failures: number | null;
  /** (h); 0: no failures. */
  job_mtbf_hours: number;
  checkpoint_GB: number;
  checkpoint_write_s: number;
  /** Training between checkpoints, as used (min). */
  checkpoint_interval_minutes: number;
  interval_optimal: boolean;
  finite: boolean;
}

/** The parallel plan and the training options that change the iteration. */
export interface Plan {
  /** Tensor-parallel degree (GPUs). */
  tp: number;
  /** Pipeline-parallel degree (stages). */
  pp: number;
  /** Data-parallel degree (replicas). */
  dp: number;
  /** Context-parallel degree (GPUs each sequence is split over). */
  cp: number;
  /** Sequences per micro-batch. */
  micro_batch: number;
  /** Sequences per iteration. */
  global_batch: number;
  recompute: Recompute;
  /** Megatron's sequence parallelism beside tensor parallelism. */
  sequence_parallel: boolean;
  /** Model chunks per pipeline stage (count); > 1: interleaved 1F1B. */
  virtual_stages: number;
  /** Transformer layers of each pipeline stage, first to last (pp counts summing to the layers);
   * empty: the even split pp gives. */
  stage_layers: number[];
  embedding_as_layer: boolean;
  head_as_layer: boolean;
  /** 0: replicated optimizer states; 1: sharded across data-parallel ranks (ZeRO-1); 2: gradients too
   * (ZeRO-2); 3: parameters too, gathered layer by layer (ZeRO-3, FSDP FULL_SHARD). */
  zero_stage: 0 | 1 | 2 | 3;
  /** ZeRO-1 all-reduces the gradients whole rather than reduce-scattering them. */
  zero_all_reduce: boolean;
  /** Overlaps the gradient reduction with the last micro-batch's backward. */
  dp_overlap: boolean;
  attention: Attention;
  precision: Precision;
  placement: Placement;
  /** Overlaps pipeline sends with compute. */
  p2p_overlap: boolean;
  /** Fuses the weight-gradient accumulation into the GEMM. */
  grad_accumulation_fusion: boolean;
  /** Runs the tensor-parallel input-gradient collective beside the weight-gradient GEMM. */
  tp_async_backward: boolean;
  tp_comm_overlap: boolean;
  /** Norms, rotary embedding and the gated activation as one fused kernel each; false: eager PyTorch's kernels. */
  fused_elementwise: boolean;
  /** CUDA_LAUNCH_BLOCKING=1: the host waits for every kernel. */
  launch_blocking: boolean;
  /** Ranks the model states are sharded over (GPUs); 0: all of dp; less: hybrid sharding (HSDP, ZeRO-3). */
  shard_group: number;
  /** ZeRO-3: the next layer's all-gather runs beside the current layer's compute. */
  shard_prefetch: boolean;
  /** ZeRO-3: false keeps the gathered parameters from the forward for the backward (FSDP SHARD_GRAD_OP). */
  reshard_after_forward: boolean;
  /** ZeRO-3: the recomputation gathers the parameters once more (DeepSpeed ZeRO-3 with checkpointing). */
  recompute_gather: boolean;
  /** ZeRO-3: the collectives are one flat ring, each GPU's network share carrying the whole buffer. */
  shard_flat_ring: boolean;
  /** ZeRO-3: the host synchronizes the whole device before each layer computes, so the last reduce-scatter ends first (DeepSpeed ZeRO-3 v0.3.13 to v0.5.x). */
  shard_device_sync: boolean;
  /** ZeRO-Offload: each rank's optimizer shard in host memory, Adam on the CPU (ZeRO stage 1 or more). */
  optimizer_offload: boolean;
  /** A mixture of experts: expert-parallel degree (GPUs). */
  ep: number;
  /** Expert tensor-parallel degree (GPUs); 0: tp. */
  etp: number;
  /** A mixture of experts: the token permutation and unpermutation make the host wait for the GPU (Megatron-Core 0.10). */
  moe_permute_sync: boolean;
  /** Gradients accumulated and reduced in fp32 (bf16, fp8); false: in bf16. */
  grad_reduce_fp32: boolean;
}

export interface Training {
  /** Tokens to train on (count); 0: the iteration time only. */
  tokens: number;
}

/** What a result includes beyond the numbers. */
export interface Output {
  /** The timeline of one iteration (can be megabytes). */
  timeline: boolean;
  /** Each operator's time. */
  operators: boolean;
}

/** The cluster as a config gives it: every field may be left to its default. */
export interface ClusterInput {
  gpu?: string;
  num_gpus?: number;
  gpus_per_node?: number;
  intra_node_GBps?: number;
  inter_node_Gbps?: number;
  price_per_gpu_hour_usd?: number;
  gpu_speed_spread?: number;
  network?: Partial<Network>;
}

/** A simulate config. Only model and plan are required; the rest have defaults. */
export interface SimConfig {
  description?: string;
  /** A model preset's name, or a model object. */
  model: string | ModelInput;
  cluster?: ClusterInput;
  plan: Partial<Plan>;
  training?: Partial<Training>;
  reliability?: Partial<Reliability>;
  output?: Partial<Output>;
}

/** A config with every field explicit: validateConfig()'s answer and a result's `config`. */
export interface ResolvedConfig {
  description?: string;
  model: Model;
  cluster: Cluster;
  plan: Plan;
  training: Training;
  reliability: Reliability;
  output: Output;
}

// ---------------------------------------------------------------- simulate: the result

/** Where one iteration's time goes on one stage (s); the parts add up to its iteration time. */
export interface Breakdown {
  /** Forward passes (s). */
  forward: number;
  /** Backward passes (s). */
  backward: number;
  /** Recomputed forward passes (s). */
  recompute: number;
  /** Optimizer step (s). */
  optimizer: number;
  /** Waiting for other stages (s). */
  pipeline_bubble: number;
  /** Tensor-parallel collectives not hidden behind compute (s). */
  tp_comm_exposed: number;
  /** Context-parallel K/V ring exchange not hidden behind attention (s). */
  cp_comm_exposed: number;
  /** Pipeline sends not hidden (s). */
  pp_comm_exposed: number;
  /** Data-parallel gradient reduction not hidden (s). */
  dp_comm_exposed: number;
  /** Embedding all-reduce not hidden (s). */
  embedding_comm_exposed: number;
  /** The host launching kernels while the GPU waits (s). */
  host_overhead: number;
  /** Waiting for the slowest GPU the step synchronizes (s); 0 without a GPU speed spread. */
  straggler_wait: number;
}

/** Memory of one GPU (GiB); the parts add up to total. */
export interface Memory {
  /** Weights (GiB). */
  weights: number;
  /** Gradients (GiB). */
  gradients: number;
  /** Optimizer states (GiB). */
  optimizer_states: number;
  /** Activations kept for the backward pass (GiB). */
  activations: number;
  /** Communication and workspace buffers (GiB). */
  buffers: number;
  /** Their sum (GiB). */
  total: number;
}

export interface Parameters {
  /** All parameters (count). */
  total: number;
  /** One transformer layer's (count). */
  per_layer: number;
  /** The token embedding's (count). */
  embedding: number;
  /** The position embedding's (count). */
  position: number;
  /** The output layer's (count); 0 when tied to the embedding. */
  output: number;
  /** A mixture of experts: what one token passes through (count). */
  active?: number;
  /** MoE layers (count). */
  moe_layers?: number;
  /** One MoE layer with all its experts (count). */
  per_moe_layer?: number;
  /** One routed expert (count). */
  expert?: number;
  /** One MoE layer's router (count). */
  router?: number;
  /** One MoE layer's shared experts (count). */
  shared_expert?: number;
}

/** Times behind the totals. */
export interface Details {
  /** One layer's forward pass for one micro-batch (s). */
  layer_forward_s: number;
  /** One layer's backward pass for one micro-batch (s). */
  layer_backward_s: number;
  /** One layer's recomputation for one micro-batch (s). */
  layer_recompute_s: number;
  /** One pipeline send (s). */
  p2p_send_s: number;
  /** The data-parallel gradient reduction (s). */
  dp_reduce_s: number;
  /** The optimizer step (s). */
  optimizer_step_s: number;
  /** The embedding all-reduce (s). */
  embedding_allreduce_s: number;
  /** Nodes a tensor-parallel group spans (count). */
  tp_nodes: number;
  /** Nodes a data-parallel group spans (count). */
  dp_nodes: number;
  /** Layers on the fullest stage (count). */
  layers_per_stage: number;
  /** Every pipeline stage holds the same number of layers (Megatron-LM needs it). */
  even_stages: boolean;
  /** A mixture of experts: one MoE layer, one micro-batch, one GPU (docs/moe.md). */
  moe?: {
    layer_forward_s: number;
    layer_backward_s: number;
    /** What one GPU sends in one all-to-all (B). */
    dispatch_bytes: number;
    /** The layer's four all-to-alls (s). */
    all_to_all_s: number;
    /** Tokens of each local expert's GEMMs on the busiest rank (count). */
    expert_tokens: number;
    /** The busiest rank's load over the mean (ratio). */
    load_imbalance: number;
    /** Nodes an expert-parallel group spans (count). */
    ep_nodes: number;
    /** Expert data-parallel degree (GPUs). */
    edp: number;
    /** The experts' gradient reduction (s). */
    expert_reduce_s: number;
  };
  /** Optimizer offload (plan.optimizer_offload): the slowest stage's step on one GPU. */
  offload?: {
    /** Its gradient shard to host memory over PCIe (s). */
    gradient_copy_s: number;
    /** Of that, what outlasts the gradient reduction (s). */
    gradient_exposed_s: number;
    /** Adam on the CPU (s). */
    cpu_step_s: number;
    /** The updated 16-bit weights back to the GPU (s). */
    parameter_copy_s: number;
    /** Host memory of this GPU's shard (GiB). */
    host_GiB: number;
  };
  /** The slowest GPU (a profile with compute.gpu_speed_spread): the step waits for it. */
  stragglers?: {
    /** The whole wait, breakdown_s.straggler_wait (s). */
    wait_s: number;
    /** The busiest stage's compute it stretches (s). */
    compute_s: number;
    /** The profile's spread of GPU speed (fraction). */
    gpu_speed_spread: number;
    /** Expected maximum of as many standard normal draws as the plan has GPUs. */
    slowest_sigmas: number;
    /** The wait by the synchronization that adds it: tensor (and context) group, pipeline, data (s). */
    parts_s: { tensor: number; pipeline: number; data: number };
  };
}

/** How far the profile's predictions fell from measured runs like this one. */
export interface Accuracy {
  /** Mean absolute error of the predicted iteration times (%). */
  mape_percent: number;
  /** Measured runs (count). */
  measured_runs: number;
  /** Whether each was predicted by a fit that had not seen it. */
  held_out: boolean;
  /** Whether the runs were kept to check the profile and no fit used them (false: the runs it was fitted to). */
  never_fitted: boolean;
  /** Whether the runs are of mixtures of experts (a result's record is of its plan's kind first). */
  moe: boolean;
  /** The runs: calibration runs on one node, across nodes, or published runs (checks, or a calibration of them). */
  set: 'single-node' | 'multi-node' | 'published';
  /** What the published runs are: their training framework, e.g. "Megatron-LM", or their models and precisions ("grok-1 bf16/fp8 MoE"). */
  framework?: string;
  /** The GPU counts the runs span: [least, most]. */
  gpus?: [number, number];
  /** The hidden sizes of their models: [least, most]. */
  hidden?: [number, number];
}

export interface Warning {
  code: WarningCode;
  /** The field it is about, e.g. "/plan/pp". */
  pointer: string;
  /** A sentence, lower-case first word. */
  message: string;
}

export interface TrainingTotals {
  /** Tokens trained on (count). */
  tokens: number;
  /** Iterations (count). */
  iterations: number;
  /** GPU-hours (h). */
  gpu_hours: number;
  /** Energy at the GPUs' board power (MWh). */
  energy_MWh: number;
}

/** One operator's GPU time for one micro-batch on one GPU. */
export interface OperatorTime {
  /** "layer" (each transformer layer), "head" (last stage) or "embedding" (first stage). */
  block: 'layer' | 'moe layer' | 'head' | 'embedding';
  name: string;
  /** A GEMM, a fused attention kernel, a memory-bound kernel or a collective. */
  kind: 'gemm' | 'attention' | 'memory' | 'collective';
  /** Kernels it launches per micro-batch, all phases (count). */
  kernels: number;
  /** (s) */
  forward_s: number;
  /** (s) */
  recompute_s: number;
  /** (s) */
  backward_s: number;
  /** All three phases (s). */
  total_s: number;
  /** FLOPs its GEMM and attention kernels execute, all phases. */
  work_flops: number;
  /** Bytes its memory-bound kernels move, all phases. */
  hbm_bytes: number;
  /** Collective buffer bytes, all phases. */
  comm_bytes: number;
  /**
   * Where its time came from: "measured" (every kernel at a shape the profile's operator_table
   * measured), "interpolated" (every kernel from the table, some between two measured shapes),
   * "mixed" (some kernels from the table) or "modelled" (the profile's parameters).
   */
  time_source: 'measured' | 'interpolated' | 'mixed' | 'modelled';
  /** Kernels timed by the operator table at their shape (count). */
  measured_kernels: number;
  /** Kernels timed between two measured shapes (count). */
  interpolated_kernels: number;
}

/** One pipeline stage's blocks, a column per field (block i is kind[i], start_s[i], ...). */
export interface TimelineStage {
  /** The stage (index). */
  stage: number;
  kind: BlockKind[];
  /** The micro-batch of each block; -1 where not per micro-batch. */
  micro_batch: number[];
  /** The model chunk (virtual stage) of each block (index). */
  chunk: number[];
  /** From the start of the iteration (s). */
  start_s: number[];
  /** (s) */
  duration_s: number[];
}

/** simulate()'s answer. */
export interface SimResult {
  /** One training iteration (s). */
  iteration_time_s: number;
  /** The busiest stage's time, by part (s). */
  breakdown_s: Breakdown;
  /** The busiest stage (index). */
  breakdown_stage: number;
  /** Every stage's time, by part (s). */
  breakdown_by_stage_s: Breakdown[];
  /** Micro-batches per iteration per replica (count). */
  micro_batches: number;
  /** Model FLOPs utilization (fraction). */
  mfu: number;
  /** Hardware FLOPs utilization, recomputation included (fraction). */
  hfu: number;
  /** Tokens trained per second, all GPUs (tokens/s). */
  tokens_per_s: number;
  /** Model FLOPs per second per GPU (TFLOP/s). */
  tflops_per_gpu: number;
  /** (FLOP) */
  model_flops_per_iteration: number;
  /** Recomputation included (FLOP). */
  hardware_flops_per_iteration: number;
  parameters: Parameters;
  /** The fullest stage's memory per GPU (GiB). */
  memory_GiB: Memory;
  /** The fullest stage (index). */
  memory_stage: number;
  /** Every stage's memory per GPU (GiB). */
  memory_by_stage_GiB: Memory[];
  /** The GPU's usable memory (GiB). */
  memory_capacity_GiB: number;
  fits_in_memory: boolean;
  details: Details;
  /** The config simulated, every field explicit, bandwidths resolved. */
  config: ResolvedConfig;
  warnings: Warning[];
  /** The profile's record on runs like this one; absent where it records none. */
  accuracy?: Accuracy;
  /** Its record on other published runs. */
  accuracy_also?: Accuracy[];
  /** Whether the profile was fitted to measured runs of this GPU or projected (its provenance.kind). */
  profile_kind: ProfileKind;
  /** With training.tokens: the whole run. */
  training?: TrainingTotals;
  /** With training.tokens: the whole run (days). */
  training_days?: number;
  /** With training.tokens: training_days against the expected days with failures and checkpoints. */
  goodput?: Goodput;
  /** With training.tokens and a price: the whole run (USD). */
  cost_usd?: number;
  /** With output.operators. */
  operators?: OperatorTime[];
  /** With output.timeline, unless too large (a timeline_omitted warning says so). */
  timeline?: TimelineStage[];
}

// ---------------------------------------------------------------- explore

/** The plans to try; each list may be one value. Absent fields: every value that fits. */
export interface ExploreOptions {
  tp?: number | number[];
  /** Whether a tensor-parallel group may span nodes. */
  tp_across_nodes?: boolean;
  pp?: number | number[];
  virtual_stages?: number | number[];
  dp?: number | number[];
  /** Context-parallel degrees to sweep (default: 1, and more from a sequence of 16384 tokens on). */
  cp?: number | number[];
  micro_batch?: number | number[];
  recompute?: Recompute | Recompute[];
  sequence_parallel?: boolean | boolean[];
  zero_stage?: number | number[];
  /** ZeRO-3 shard groups to sweep (GPUs; 0: all of dp). */
  shard_group?: number | number[];
  /** A mixture of experts' expert-parallel degrees to sweep; default: the divisors of its experts. */
  ep?: number | number[];
  /** Expert tensor-parallel degrees to sweep (0: tp); default: 0. */
  etp?: number | number[];
  objective?: Objective;
  /** The most training days allowed, with the deadline objective (days). */
  deadline_days?: number;
  /** Whether plans that do not fit in memory are timed too. */
  simulate_unfit?: boolean;
  /** A larger space is refused with code "too_large" (count). */
  max_plans?: number;
  /** Bounds the pipeline simulation's work (blocks); 0: no bound. */
  max_blocks?: number;
}

/** explore()'s request: a simulate config whose cluster.num_gpus is the most GPUs a plan may use, or a case over which it applies. */
export interface ExploreRequest {
  /** One of the simulator's sweep cases, e.g. "mt-nlg"; the other fields override it. */
  case?: string;
  description?: string;
  model?: string | ModelInput;
  cluster?: Partial<Cluster>;
  /** Its global_batch is every plan's; tp, pp and dp, if given, are the baseline plan. */
  plan?: Partial<Plan>;
  training?: Partial<Training>;
  output?: Partial<Output>;
  explore?: ExploreOptions;
}

/** One plan of a sweep. The times and costs are null for a plan not timed. */
export interface ExploredPlan {
  tp: number;
  pp: number;
  dp: number;
  virtual_stages: number;
  micro_batch: number;
  recompute: Recompute;
  sequence_parallel: boolean;
  zero_stage: number;
  /** ZeRO-3's shard group, where not all of dp. */
  shard_group?: number;
  /** Expert-parallel degree, where not 1. */
  ep?: number;
  /** Expert tensor-parallel degree, where not 0. */
  etp?: number;
  /** Context parallelism, where above 1. */
  cp?: number;
  /** GPUs it uses (count). */
  num_gpus: number;
  /** (s) */
  iteration_time_s: number | null;
  /** (days) */
  training_days: number | null;
  /** With failures, restarts and checkpoints (days); null: not simulated, or no finite time. */
  expected_days: number | null;
  /** (h) */
  gpu_hours: number | null;
  /** Null also without a price (USD). */
  cost_usd: number | null;
  /** Null also without the GPU's board power (MWh). */
  energy_MWh: number | null;
  /** (fraction) */
  mfu: number | null;
  /** The fullest stage's memory per GPU (GiB). */
  memory_GiB: number;
  fits_in_memory: boolean;
  /** Whether it uses at most the GPUs allowed. */
  within_gpu_limit: boolean;
  /** Timed, fits in memory and within the GPU limit: a plan that could run. */
  feasible: boolean;
  /** Whether it was timed. */
  simulated: boolean;
  /** Whether it is on the time-cost frontier. */
  pareto: boolean;
}

/** A plan picked out of a sweep, with its place in `plans`. */
export interface IndexedPlan extends ExploredPlan {
  /** Its index in the result's plans. */
  index: number;
}

export interface ExploreQuestion {
  /** The model's name. */
  model: string;
  /** (count) */
  parameters: number;
  /** (count) */
  tokens: number;
  /** (sequences) */
  global_batch: number;
  /** (tokens) */
  seq_len: number;
  gpu: string;
  /** The most GPUs a plan may use (count). */
  max_gpus: number;
  /** (count) */
  gpus_per_node: number;
  /** (USD) */
  price_per_gpu_hour_usd: number;
  objective: Objective;
  /** With the deadline objective (days). */
  deadline_days: number | null;
  /** With the balanced objective: how much longer than the fastest plan the best may train (fraction). */
  time_slack?: number;
  /** The case swept, if any. */
  case?: string;
}

export interface ExploreStats {
  /** Plans in the space (count). */
  plans: number;
  /** Within the GPU limit (count). */
  within_gpu_limit: number;
  /** Fitting in memory (count). */
  fit: number;
  /** Timed (count). */
  simulated: number;
  /** Able to run: timed, fitting, within the limit (count). */
  feasible: number;
  /** Combinations of the given values that break a rule, left out of the space (count). */
  skipped_invalid: number;
  /** Pipeline blocks simulated (count). */
  pipeline_blocks: number;
  /** Pipeline simulations run (count). */
  pipelines_run: number;
  /** Pipeline simulations reused from a plan of the same shape (count). */
  pipelines_reused: number;
  /** (count) */
  threads: number;
  /** The sweep's own time (s). */
  seconds: number;
}

/** explore()'s answer. */
export interface ExploreResult {
  question: ExploreQuestion;
  plans: ExploredPlan[];
  /** The time-cost frontier, fastest first. */
  pareto: IndexedPlan[];
  best_time: IndexedPlan | null;
  best_cost: IndexedPlan | null;
  /** The best plan for the objective. */
  best: IndexedPlan | null;
  /** The request's own plan, if it gave one. */
  baseline: IndexedPlan | null;
  stats: ExploreStats;
}

// ---------------------------------------------------------------- optimal

/** One of these, or days beside usd or gpu_hours as a deadline. */
export interface Budget {
  /** Days on the cluster (days); beside usd or gpu_hours, the deadline. */
  days?: number;
  /** GPU-days (days × GPUs). */
  gpu_days?: number;
  /** (USD) */
  usd?: number;
  /** (h) */
  gpu_hours?: number;
  /** FLOPs at the GPUs' peak (FLOP). */
  flops?: number;
}

/** Loss and tokens from a published fit's loss at a fixed number of tokens per parameter. */
export interface RatioRule {
  /** (tokens per parameter) */
  tokens_per_param: number;
  /** The fit that gives the losses, e.g. "hoffmann2022". */
  loss_fit?: string;
}

/** A fit L(N, D) = E + A/N^alpha + B/D^beta of your own. */
export interface CustomFit {
  E?: number;
  A: number;
  B: number;
  alpha: number;
  beta: number;
}

/** optimal()'s request. */
export interface OptimalRequest {
  /** One of presets().optimal; the other fields override it. */
  preset?: string;
  description?: string;
  /** (tokens) */
  seq_len?: number;
  /** (sequences) */
  global_batch?: number;
  family?: Family;
  budget?: Budget;
  /** Its num_gpus is the most GPUs a plan may use. */
  cluster?: Partial<Cluster>;
  /** Options every candidate's plans share (not tp, pp, dp, micro_batch, global_batch, virtual_stages). */
  plan?: Partial<Plan>;
  /** A published fit by name ("hoffmann2022", "besiroglu2024"), a ratio rule or a fit of your own. */
  scaling?: string | RatioRule | CustomFit;
  candidates?: {
    /** (count) */
    min_params?: number;
    /** (count) */
    max_params?: number;
  };
  /** Restricts each candidate's sweep. */
  explore?: {
    tp?: number | number[];
    micro_batch?: number | number[];
    virtual_stages?: number | number[];
    recompute?: Recompute | Recompute[];
    tp_across_nodes?: boolean;
    /** A money budget's plan per size: the cheapest (cost, the default) or balanced. */
    objective?: 'cost' | 'balanced';
  };
}

/** A candidate model, with its parameter count. */
export interface CandidateModel extends Model {
  /** (count) */
  params: number;
}

/** One candidate size spending the whole budget; the plan fields are absent when no plan fits. */
export interface Candidate {
  model: CandidateModel;
  /** (count) */
  params: number;
  /** Whether a plan of it fits on the GPUs. */
  has_plan: boolean;
  /** The tokens the budget buys at the GPUs' peak (count). */
  tokens_flop_only: number;
  loss_flop_only: number;
  /** Its fastest plan (cheapest, for a money budget). */
  plan?: ExploredPlan;
  /** (s) */
  iteration_time_s?: number;
  /** (fraction) */
  mfu?: number;
  /** (count) */
  num_gpus?: number;
  /** (tokens/s) */
  tokens_per_s?: number;
  /** (FLOP) */
  flops_per_token?: number;
  /** (FLOP) */
  recompute_flops_per_token?: number;
  /** The tokens its plan trains within the budget (count). */
  tokens_achievable?: number;
  loss_achievable?: number;
  /** (days) */
  days_achievable?: number;
  /** (USD) */
  cost_achievable_usd?: number;
  /** Training on the FLOP-only tokens at its plan's speed (days). */
  days_flop_only?: number;
  /** (USD) */
  cost_flop_only_usd?: number;
  /** With a ratio rule (count). */
  tokens_at_ratio?: number;
  /** With a ratio rule (days). */
  days_at_ratio?: number;
  /** With a ratio rule. */
  loss_at_ratio?: number;
  /** With a ratio rule (USD). */
  cost_at_ratio_usd?: number;
  /** With a ratio rule. */
  within_budget_at_ratio?: boolean;
}

/** An answer: a candidate and what it trains on. */
export interface Answer extends Candidate {
  /** (count) */
  tokens: number;
  loss: number;
  /** (days) */
  training_days?: number;
  /** (USD) */
  cost_usd?: number;
  /** (h) */
  gpu_hours?: number;
}

/** The scaling law's answer, as if the GPUs ran at peak. */
export interface FlopOnly {
  /** (count) */
  params: number;
  /** (count) */
  tokens: number;
  loss: number;
  /** The candidate size nearest to it, training the same FLOPs. */
  nearest_candidate?: Answer;
  /** At the nearest candidate's speed (days). */
  training_days?: number;
  /** (USD) */
  cost_usd?: number;
  /** That cost at the cluster's price (GPU-hours). */
  gpu_hours?: number;
  /** (fraction) */
  mfu?: number;
}

/** optimal()'s answer. */
export interface OptimalResult {
  budget: {
    kind: 'time' | 'money' | 'flops';
    /** (days) */
    days: number;
    /** (USD) */
    usd: number;
    /** With a money budget (h). */
    gpu_hours: number | null;
    /** (days) */
    deadline_days: number | null;
    /** (FLOP) */
    flops: number;
    /** The most GPUs (count). */
    gpus: number;
    gpu: string;
    /** The budget in every unit, on these GPUs at their peak and price. */
    equivalent: {
      /** (days) */
      days: number;
      /** (FLOP) */
      flops: number;
      /** (h) */
      gpu_hours: number;
      /** With a price (USD). */
      usd: number | null;
    };
  };
  scaling: {
    rule: 'fit' | 'tokens_per_param';
    /** The fit's name, with rule "fit". */
    fit?: string;
    /** With rule "tokens_per_param". */
    tokens_per_param?: number;
    /** With rule "tokens_per_param". */
    loss_fit?: string;
    citation: string;
    E: number;
    A: number;
    B: number;
    alpha: number;
    beta: number;
  };
  /** (tokens) */
  seq_len: number;
  /** (sequences) */
  global_batch: number;
  family: Family;
  /**
   * How each size's plan was chosen: the fastest (time budget), the one training the most tokens
   * within money and days (most_tokens), the cheapest (cost) or balanced, with its time_slack.
   */
  plan_rule: { objective: 'time' | 'most_tokens' | 'cost' | 'balanced'; time_slack?: number };
  /** The sizing's own time (s). */
  seconds: number;
  /** (count) */
  plans_simulated: number;
  preset?: string;
  description?: string;
  flop_only: FlopOnly;
  /** The best model the simulated plans train within the budget; null when none does. */
  achievable: Answer | null;
  /** Next best within the budget. */
  alternatives: Answer[];
  /** Every candidate size, smallest first. */
  curve: Candidate[];
}

// ---------------------------------------------------------------- schema

/** How the readers take one field: its JSON type, default and bounds. */
export interface SchemaField {
  type?: 'integer' | 'number' | 'boolean' | 'string' | 'array';
  /** The value a field left out takes (an ordered array: its sequence, empty by default). */
  default?: number | boolean | string | number[];
  /** What a field left out takes, where that depends on other fields. */
  default_rule?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  /** The longest string accepted (bytes). */
  maxLength?: number;
  /** The name of its choices in Schema.enums. */
  enum?: string;
  /** The registry its value is looked up in (a key of Schema.registries). */
  registry?: string;
  /** An array's elements. */
  items?: SchemaField;
  /** What a special value means (0: the optimal interval, ...). */
  note?: string;
}

/** A section of a request: its fields, in the order the readers take them. */
export interface SchemaSection {
  fields: Record<string, SchemaField>;
  order: string[];
  note?: string;
  case?: SchemaField;
  preset?: SchemaField;
  /** The cluster's network subsection (/cluster/network). */
  network?: SchemaSection;
  /** The model's expert layers (/model/moe), absent for a dense model. */
  moe?: SchemaSection;
  /** The model's latent-attention subsection (/model/mla). */
  mla?: SchemaSection;
  /** The hidden sizes candidates span (elements). */
  hidden?: number[];
  /** The most candidate sizes a request may ask for (count). */
  max_candidates?: number;
}

/** One choice of an enum: the name a config writes and a label for a reader. */
export interface SchemaChoice {
  name: string;
  label: string;
}

/** schema()'s answer: every choice, registry, default and bound the readers apply. */
export interface Schema {
  version: string;
  /** Each enum's choices, by enum name. */
  enums: Record<string, SchemaChoice[]>;
  /** The largest value of each whole-number or bounded field. */
  limits: Record<string, number>;
  /** A simulate config's sections (model, cluster, plan, training, reliability, output) and its description. */
  config: Record<string, SchemaSection | SchemaField>;
  /** An explore request's "explore" object. */
  explore: SchemaSection;
  /** A compute-optimal request. */
  optimal: {
    fields: Record<string, SchemaField>;
    order: string[];
    preset: SchemaField;
    budget: SchemaSection;
    candidates: SchemaSection;
    explore: SchemaSection;
    plan: { note: string };
    scaling: Record<string, SchemaSection | SchemaField>;
  };
  registries: {
    examples: { name: string; description: string }[];
    explore_cases: { name: string; label: string; description: string; example: string; request: ExploreRequest }[];
    gpus: {
      name: string;
      display_name: string;
      /** How a page names it in a sentence: the display name without the vendor ("A100 SXM4 80GB"). */
      label: string;
      /** (TFLOP/s) */
      peak_fp16_tflops: number;
      /** Dense FP8 peak; 0: no FP8, plan.precision "fp8" is refused (TFLOP/s). */
      peak_fp8_tflops: number;
      /** "calibrated": fitted to measured runs of this GPU; "projected": datasheet plus rules from another GPU's fit. */
      kind: ProfileKind;
      /** (GiB) */
      hbm_GiB: number;
      /** (GB/s) */
      hbm_GBps: number;
      /** (W) */
      board_power_W: number;
      /** (count) */
      gpus_per_node: number;
      /** Per GPU, per direction (GB/s). */
      intra_node_GBps: number;
      /** Per node (Gbit/s). */
      inter_node_Gbps: number;
    }[];
    model_presets: {
      name: string;
      description: string;
      source: string;
      /** The parameter count its authors published (count). */
      published_params: number;
      /** The parameter count of its shape (count). */
      params: number;
      /** A mixture of experts: the active parameters its authors published, and its shape's (count). */
      published_active_params?: number;
      active_params?: number;
      model: Model;
    }[];
    optimal_presets: { name: string; description: string; request: OptimalRequest }[];
    scaling_fits: { name: string; label: string; citation: string; E: number; A: number; B: number; alpha: number; beta: number }[];
  };
}

// ---------------------------------------------------------------- schedule

/** The plans a policy's jobs run at each GPU count: the best one, or the job's own scaled by data parallelism. */
export type CurveKind = 'best_plan' | 'data_parallel';

/** A job of a workload. Exactly one of tokens, iterations or duration_s. */
export interface JobInput {
  /** Unique within the workload; default "job-N". */
  id?: string;
  /** Submission (s after the workload's start). */
  arrival_s?: number;
  /** When it should be done (s after the workload's start); not with duration_s. */
  deadline_s?: number;
  model: string | ModelInput;
  /** Sequences per iteration. */
  global_batch: number;
  /** GPUs it asks for (count): 1, 2, 4 or whole nodes. */
  gpus: number;
  tokens?: number;
  iterations?: number;
  /** Its time on its GPUs with its own plan (s); the job is sized to it. */
  duration_s?: number;
  /** With duration_s: the deadline, in durations after arrival. */
  deadline_factor?: number;
  /** Its own plan (tp, pp, micro_batch, recompute) and the fields every plan of it shares; not dp or global_batch. */
  plan?: Partial<Plan>;
}

/** How trace jobs of ElasticFlow's CSV become LLM jobs; every key overrides the default. */
export interface TraceMapping {
  /** Cluster GPUs per trace GPU. */
  gpu_scale?: number;
  /** Simulated seconds per trace second. */
  time_scale?: number;
  sizes?: { max_trace_gpus: number; model: string | ModelInput; global_batch: number }[];
  /** Shared plan fields (not tp, pp, micro_batch, recompute: those are each job's best). */
  plan?: Partial<Plan>;
}

/** The seeded synthetic workload. */
export interface GeneratorSettings {
  seed?: number;
  jobs?: number;
  /** Poisson arrivals (jobs per hour). */
  arrival_rate_per_hour?: number;
  /** Durations on the GPUs asked for, log-uniform between (h). */
  duration_hours?: [number, number];
  /** Deadline after arrival in durations, uniform between. */
  deadline_factor?: [number, number];
  /** Default: the ITP trace's request sizes in its proportions. */
  mix?: { model: string | ModelInput; global_batch: number; gpus: number; weight?: number }[];
}

/** Exactly one of example, jobs, csv or generate. */
export interface WorkloadInput {
  /** A bundled workload, e.g. "itp-195". */
  example?: string;
  jobs?: JobInput[];
  /** A job list, one job a row with a job's keys as columns, or an ITP trace in ElasticFlow's format. */
  csv?: string;
  generate?: GeneratorSettings;
  /** Keep the first N arrivals; null: all (over a case's). */
  first_jobs?: number | null;
  /** For a trace given as csv. */
  mapping?: TraceMapping;
  description?: string;
}

export interface ScheduleRequest {
  /** A schedule case, e.g. "vtrain-case2"; the other fields override it. */
  case?: string;
  description?: string;
  /** num_gpus is the cluster's size. */
  cluster?: Partial<Cluster>;
  workload?: WorkloadInput;
  /** Policy names: fifo, edf, elasticflow-dp, elasticflow-vtrain (the default: all). */
  policies?: string[];
  /** A resize's checkpoint-restart pause (s); default 60. */
  restart_pause_s?: number;
  /** Also re-plan every period (s); 0: at arrivals and completions only. */
  period_s?: number;
}

/** A plan a job runs. */
export interface SchedulePlan {
  tp: number;
  pp: number;
  dp: number;
  micro_batch: number;
  recompute: Recompute;
  sequence_parallel: boolean;
  zero_stage: 0 | 1;
  virtual_stages: number;
}

/** A job as resolved: its plan on the GPUs it asks for, its iterations and deadline. */
export interface ScheduledJob {
  id: string;
  /** (s) */
  arrival_s: number;
  /** (s) */
  deadline_s: number;
  model_name: string;
  /** (count) */
  parameters: number;
  global_batch: number;
  /** GPUs asked for (count). */
  gpus: number;
  iterations: number;
  tokens: number;
  /** Its index in curves. */
  curve: number;
  plan: SchedulePlan;
}

/** Per allocation count (counts): the plan run on at most that many GPUs, null where none fits. */
export interface ThroughputCurve {
  /** (s) */
  iteration_time_s: (number | null)[];
  /** tp × pp × dp of each plan (count). */
  plan_gpus: number[];
  plans: (SchedulePlan | null)[];
  /** Indices of the counts worth holding: faster than every smaller one, and no costlier in GPU-seconds an iteration than any larger one. */
  levels: number[];
}

export interface JobCurves {
  model: string;
  /** (count) */
  parameters: number;
  global_batch: number;
  /** The job's own plan. */
  fixed_plan: SchedulePlan;
  best: ThroughputCurve;
  data_parallel: ThroughputCurve;
}

/** From time_s on the job holds gpus (0: none, or done) and runs plan; it progresses from resume_s. */
export interface AllocationChange {
  /** (s) */
  time_s: number;
  gpus: number;
  plan: SchedulePlan | null;
  plan_gpus: number;
  /** (s) */
  iteration_time_s: number | null;
  /** After a resize, time_s plus the pause (s). */
  resume_s: number;
}

export interface JobOutcome {
  id: string;
  admitted: boolean;
  finished: boolean;
  met_deadline: boolean;
  /** (s); null: never started. */
  start_s: number | null;
  /** (s); null: not finished. */
  finish_s: number | null;
  /** finish - arrival (s). */
  jct_s: number | null;
  resizes: number;
  allocations: AllocationChange[];
}

/** The cluster from time_s to the next point. */
export interface UsagePoint {
  /** (s) */
  time_s: number;
  gpus_allocated: number;
  jobs_running: number;
  jobs_waiting: number;
}

/** One policy's run. */
export interface PolicyResult {
  name: string;
  curve: CurveKind;
  /** Jobs of the workload (count). */
  jobs_total: number;
  admitted: number;
  finished: number;
  deadlines_met: number;
  /** deadlines_met / jobs_total. */
  deadline_ratio: number;
  /** Of the finished jobs (s). */
  avg_jct_s: number;
  /** Nearest rank (s). */
  p95_jct_s: number;
  /** First arrival to last finish (s). */
  makespan_s: number;
  /** GPU-seconds held over the cluster's over the makespan. */
  gpu_utilization: number;
  gpu_hours: number;
  /** null without a price. */
  cost_usd: number | null;
  resizes: number;
  /** Scheduling events simulated (count). */
  events: number;
  /** Wall time (s). */
  seconds: number;
  jobs: JobOutcome[];
  timeline: UsagePoint[];
}

/** elasticflow-vtrain against elasticflow-dp. */
export interface PolicyComparison {
  policy: string;
  baseline: string;
  /** Deadlines met over the baseline's; null when it met none. */
  deadlines_met_x: number | null;
  admitted_x: number | null;
  /** Over the baseline's, minus 1. */
  avg_jct_change: number;
  p95_jct_change: number;
  makespan_change: number;
  /** Difference of the utilizations. */
  utilization_change: number;
}

/** schedule()'s answer. */
export interface ScheduleResult {
  case?: string;
  description?: string;
  cluster: { gpu: string; num_gpus: number; gpus_per_node: number; price_per_gpu_hour_usd: number };
  /** (s) */
  restart_pause_s: number;
  /** (s) */
  period_s: number;
  workload: { name: string; description: string; jobs: ScheduledJob[] };
  /** The GPU counts a job may hold, those of every curve. */
  counts: number[];
  curves: JobCurves[];
  policies: PolicyResult[];
  comparison: PolicyComparison | null;
  stats: { shapes: number; swept: number; plans_simulated: number; curve_seconds: number; seconds: number };
}

// ---------------------------------------------------------------- presets, profiles, version

export interface ModelPreset {
  name: string;
  description: string;
  /** Where its shape comes from. */
  source: string;
  /** The parameter count its authors published (count). */
  published_params: number;
  /** A mixture of experts: the active parameters its authors published (count). */
  published_active_params?: number;
  model: Model;
}

export interface Example {
  name: string;
  description: string;
  config: SimConfig;
}

export interface OptimalPreset {
  name: string;
  request: OptimalRequest;
}

/** presets()'s answer. */
export interface Presets {
  models: ModelPreset[];
  examples: Example[];
  optimal: OptimalPreset[];
}

/** A GPU profile: the hardware and the fitted timings the simulator uses. */
export interface Profile {
  name: string;
  display_name: string;
  hardware: {
    /** (TFLOP/s) */
    peak_fp16_tflops: number;
    /** (TFLOP/s) */
    peak_fp32_tflops: number;
    /** Dense FP8 peak; absent or 0 on a GPU without FP8 (TFLOP/s). */
    peak_fp8_tflops?: number;
    /** Host-device copy bandwidth per GPU, each direction, all of a node's GPUs at once; absent: no optimizer offload (GB/s). */
    pcie_GBps?: number;
    /** The node's CPU memory bandwidth a streaming kernel reaches; absent: no optimizer offload (GB/s). */
    host_memory_GBps?: number;
    /** (GiB) */
    hbm_GiB: number;
    /** (GB/s) */
    hbm_GBps: number;
    /** (count) */
    sm_count: number;
    /** SMs a ring collective's kernels hold while they run, taken from the compute beside sharded collectives (count). */
    collective_sms: number;
    /** (W) */
    board_power_W: number;
    /** Per GPU, per direction (GB/s). */
    intra_node_GBps: number;
    /** Per node (Gb/s). */
    inter_node_Gbps: number;
    /** (count) */
    gpus_per_node: number;
  };
  compute: {
    /** (fraction) */
    gemm_max_efficiency: number;
    /** FP8 GEMMs' fraction of the FP8 peak; absent: the 16-bit one's (fraction). */
    fp8_gemm_efficiency?: number;
    gemm_tiles: { m: number; n: number; efficiency: number }[];
    /** (elements) */
    gemm_k_half: number;
    /** (fraction) */
    attention_fwd_efficiency: number;
    /** (fraction) */
    attention_bwd_efficiency: number;
    /** (fraction) */
    memory_efficiency: number;
    /** (µs) */
    kernel_overhead_us: number;
    /** (µs) */
    host_issue_us: number;
    /** (µs) */
    host_issue_backward_us: number;
    /** (µs) */
    host_layer_us: number;
    /** (µs) */
    host_microbatch_us: number;
    /** (ms) */
    iteration_overhead_ms: number;
    /** (bytes) */
    optimizer_bytes_per_param: number;
  };
  communication: {
    intra_node: { gpus: number; min_time_us: number; latency_us: number; busbw_GBps: number }[];
    /** (µs) */
    collective_sync_us: number;
    /** (µs) */
    inter_node_latency_us: number;
    /** (µs) */
    inter_node_base_latency_us: number;
    /** (fraction) */
    inter_node_efficiency: number;
    /** (µs) */
    p2p_latency_us: number;
    /** (fraction) */
    p2p_intra_efficiency: number;
  };
  memory: {
    /** (GiB) */
    runtime_reserved_GiB: number;
  };
  /**
   * Measured kernel times (docs/profiler.md): a GEMM of m × n × k, `batch` of them; causal flash
   * attention forward or backward (m queries, n keys, head dimension k, batch = micro-batch × heads);
   * or a memory-bound kernel moving `bytes`; `kernel` names what was timed; time (µs).
   */
  operator_table: {
    op: 'gemm' | 'attention_fwd' | 'attention_bwd' | 'memory';
    m?: number;
    n?: number;
    k?: number;
    batch?: number;
    bytes?: number;
    kernel?: string;
    time_us: number;
  }[];
  /** Where each number comes from. */
  provenance: Record<string, unknown>;
}

/** version()'s answer. */
export interface Version {
  /** e.g. "0.1.0". */
  version: string;
}

// ---------------------------------------------------------------- Hugging Face import

/** importHf()'s answer: a Hugging Face config.json as the model section of a config (docs/hugging-face.md). */
export interface HfImport {
  /** The `model` of a config, as `vtrain import-hf` prints it; with head_dim, moe and mla where the file has them. */
  model: ModelInput;
  /** The family the file was read as: "llama", "mistral", "mixtral", "qwen2", "qwen3_moe", "deepseek_v3", "gemma", "gpt2", "gpt_neox", "falcon", "opt", "bloom", … */
  architecture: string;
  /**
   * One per field of the file the model section cannot hold (code "unmapped") and per value the
   * importer chose (code "assumption"); `pointer` names the field of the Hugging Face file.
   */
  warnings: Diagnostic[];
}

// ---------------------------------------------------------------- the calls

export interface CallOptions {
  /** Aborting it rejects the call with a VtrainError of code "cancelled". */
  signal?: AbortSignal;
}

export interface SimulateOptions extends CallOptions {
  /** "low": computed in a background worker, so it never delays other calls (browser only). */
  priority?: 'low' | 'normal';
}

export interface ProgressOptions extends CallOptions {
  /** Called with the fraction done, from 0 to 1. */
  onProgress?: (fraction: number) => void;
}

/** The simulator. Every call takes and returns plain objects; a rejected input throws a VtrainError. */
export interface Vtrain {
  /** The simulator's version. */
  readonly version: Version;
  /** Simulates one config: iteration time, breakdown, memory, cost, timeline. */
  simulate(config: SimConfig, options?: SimulateOptions): Promise<SimResult>;
  /** Checks a config; resolves to it with every field explicit. */
  validateConfig(config: SimConfig, options?: CallOptions): Promise<ResolvedConfig>;
  /** Sweeps the plans of a config. */
  explore(request: ExploreRequest, options?: ProgressOptions): Promise<ExploreResult>;
  /** The compute-optimal model for a budget. */
  optimal(request: OptimalRequest, options?: ProgressOptions): Promise<OptimalResult>;
  /** Many training jobs on one cluster under each scheduling policy. */
  schedule(request: ScheduleRequest, options?: ProgressOptions): Promise<ScheduleResult>;
  /** A Hugging Face config.json (its text or the parsed object) as a config's model section; errors name the file's field. */
  importHf(configJson: string | Record<string, unknown>, options?: CallOptions): Promise<HfImport>;
  /** Model presets, example configs and compute-optimal presets. */
  presets(options?: CallOptions): Promise<Presets>;
  /** The bundled GPU profiles. */
  profiles(options?: CallOptions): Promise<Profile[]>;
  /** Every enum's choices, the registries, defaults and bounds the readers apply. */
  schema(options?: CallOptions): Promise<Schema>;
  /** Starts the background and sweep workers now (or those `lanes` names), so their first call does not wait for a module to load. */
  warmUp(lanes?: Array<'background' | 'sweeps'>): Promise<void>;
  /** Stops the workers; pending calls reject with code "cancelled". */
  terminate(): void;
}
