#!/usr/bin/env node
// Projects GPU profiles from a calibrated one: the datasheet's figures of each GPU, and every
// parameter a datasheet cannot give carried over by the rules below (docs/gpus.md says why each
// rule is the physical one), from the nearest calibrated GPU:
//   - the H100 from the A100 SXM4 80GB (--base): written to --h100 PATH (default: not written),
//     since the bundled H100 profile is calibrated to the H100's published runs by
//     `vtrain calibrate --gpu h100-sxm5-80gb --cv 5`, starting from this projection;
//   - the H200 and the B200 from that calibrated H100 (--hopper): the H200 is the H100's silicon,
//     and both run the stack the H100 was fitted to (NeMo / Megatron-Core with Transformer Engine,
//     FP8), so the H100's fitted fractions (FP8 GEMMs, fused attention, memory-bound kernels) and
//     host costs are the nearest measured ones. Written to profiles/h200-sxm-141gb.json and
//     profiles/b200-sxm-180gb.json.
//
//   node scripts/project-profiles.mjs                      # H200 and B200 into profiles/
//   node scripts/project-profiles.mjs --h100 /tmp/h100-projected.json
//   node scripts/project-profiles.mjs --dir /tmp/p      # H200 and B200 into /tmp/p instead
//   node scripts/project-profiles.mjs --base /tmp/a100.json --h100 /tmp/h100.json   # from another A100 fit
//   node scripts/project-profiles.mjs --hopper /tmp/h100.json --dir /tmp/p   # from another H100 fit
//
// The rules:
//   - compute: GEMM, attention and memory-bound efficiencies are fractions of the GPU's own peaks
//     and bandwidth: carried unchanged. From the A100 (no FP8), an FP8 GEMM reaches the fraction of
//     the FP8 peak a 16-bit one reaches of the 16-bit peak; from the H100, its fitted FP8 fraction.
//     The tile shapes, the reduction length at half speed and the per-kernel GPU overhead are
//     carried too, as are the host's costs (the same Megatron code issues the same kernels).
//   - intra-node collectives: each group size's bus bandwidth scales with the NVLink bandwidth per
//     GPU (busbw x new / the base's); latencies and small-message floors are carried unchanged.
//   - inter-node: efficiency and latencies carried; the NICs' bandwidth from the node's datasheet.
//   - pipeline sends: their efficiency of the link and latency carried.
//   - memory: the runtime's reserve and the optimizer's bytes per parameter carried.

import { readFileSync, writeFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
function readProfile(flag, fallback) {
  const i = process.argv.indexOf(flag);
  return JSON.parse(readFileSync(i >= 0 ? process.argv[i + 1] : join(root, fallback), 'utf8'));
}
const bases = {
  a100: readProfile('--base', 'profiles/a100-sxm4-80gb.json'),
  h100: readProfile('--hopper', 'profiles/h100-sxm5-80gb.json'),
};

const RULES =
  'projected from BASE by scripts/project-profiles.mjs: GEMM, attention and memory-bound ' +
  'efficiencies carried as fractions of this GPU\'s own peaks and HBM bandwidth (FP8_RULE); ' +
  'GEMM tiles, the reduction length at half speed, kernel and host ' +
  'overheads and the spread of GPU speed carried unchanged; intra-node all-reduce bus bandwidth of each group size scaled by ' +
  'the NVLink bandwidth per GPU, its latencies and floors carried; inter-node efficiency and ' +
  'latencies, pipeline-send efficiency and latency, optimizer bytes per parameter and the ' +
  'runtime reserve carried unchanged';

// A ring collective's NCCL kernels hold 16 SMs: two channels for each of the node's eight NICs
// (the A100 profile's value; NVIDIA/nccl#1453 logs 16 channels on DGX H100 nodes).
// The host, for optimizer offload: PCIe Gen5 x16 (64 GB/s a direction, about 50 GB/s of pinned
// copies) with two GPUs behind each switch's uplink as on the DGX A100, 25 GB/s a GPU when all copy
// at once; two Xeon Platinum 8480C of eight DDR5-4800 channels each (614 GB/s), 75% of it streamed.
const H100_HARDWARE = {
  board_power_W: 700,
  collective_sms: 16,
  gpus_per_node: 8,
  hbm_GBps: 3350,
  hbm_GiB: 80,
  host_memory_GBps: 461,
  inter_node_Gbps: 3200,
  intra_node_GBps: 450,
  pcie_GBps: 25,
  peak_fp16_tflops: 989.4,
  peak_fp32_tflops: 66.9,
  peak_fp8_tflops: 1978.9,
  sm_count: 132,
};

// Fused attention on Hopper: FlashAttention-2, with no Hopper-specific instructions, reaches "up to
// 335 TFLOPs/s" forward on an H100 SXM5 (Dao 2023, FlashAttention-2, arXiv 2307.08691, section 4.1),
// a smaller fraction of the peak than on the A100 (Hopper's tensor cores need its new instructions).
// The H100 and H200 share the silicon; the backward keeps the A100 profile's backward/forward ratio.
const HOPPER_ATTENTION = {
  fwd_tflops: 335,
  rule: 'fused attention on Hopper at FlashAttention-2\'s measured forward rate on an H100 SXM5, 335 TFLOP/s ' +
    '(Dao 2023, arXiv 2307.08691, section 4.1), as a fraction of the BF16 peak, the backward at the A100 ' +
    'profile\'s backward/forward ratio',
};

export const GPUS = {
  'h100-sxm5-80gb': {
    from: 'a100',
    display_name: 'NVIDIA H100 SXM5 80GB',
    hardware: H100_HARDWARE,
    attention: HOPPER_ATTENTION,
    source:
      'NVIDIA H100 Tensor Core GPU datasheet (SXM5): 989 TFLOP/s dense BF16/FP16 (1979 with sparsity), ' +
      '1979 TFLOP/s dense FP8 (3958 with sparsity), 67 TFLOP/s FP32, 80 GB HBM3 at 3.35 TB/s, NVLink ' +
      '900 GB/s (450 GB/s per direction), up to 700 W; NVIDIA H100 whitepaper (Hopper architecture): ' +
      '132 SMs on the SXM5 board; DGX H100: 8 GPUs and 8 x 400 Gb/s ConnectX-7 (3200 Gbit/s) per node, ' +
      'two Xeon Platinum 8480C (eight DDR5-4800 channels each: 614 GB/s, 461 at 75% streamed), PCIe Gen5 ' +
      '(about 50 GB/s of pinned copies a x16 link, two GPUs a switch uplink: 25 GB/s a GPU)',
  },
  'h200-sxm-141gb': {
    from: 'h100',
    display_name: 'NVIDIA H200 SXM 141GB',
    // The H100 SXM5's silicon, board and node with HBM3e: only the memory differs.
    hardware: { ...H100_HARDWARE, hbm_GBps: 4800, hbm_GiB: 139 },
    source:
      'NVIDIA H200 Tensor Core GPU datasheet (SXM): the H100 SXM5\'s compute (989 TFLOP/s dense BF16, ' +
      '1979 dense FP8, 67 FP32; 132 SMs), 141 GB HBM3e at 4.8 TB/s (139 GiB as the CUDA device of an H200 reports it), NVLink 900 GB/s, up to ' +
      '700 W; HGX/DGX H200: 8 GPUs and 8 x 400 Gb/s ConnectX-7 (3200 Gbit/s) per node, the DGX H100\'s ' +
      'host (two Xeon Platinum 8480C, 461 GB/s streamed; PCIe Gen5, 25 GB/s a GPU)',
  },
  'b200-sxm-180gb': {
    from: 'h100',
    display_name: 'NVIDIA B200 180GB (HGX/DGX B200)',
    // NVIDIA's published B200 runs with stated plans: checks of the projection, never fitted; their
    // error is recorded in the profile, so that a result on a B200 says how far to trust it.
    checks: [
      { file: 'nemo-b200.csv', framework: 'NeMo/Megatron-Core fp8', moe: false },
      { file: 'moe-b200.csv', framework: 'NeMo/Megatron-Core fp8 MoE', moe: true },
    ],
    // 16-bit GEMMs on a B200, measured: cuBLAS through PyTorch 2.8 / CUDA 12.8, BF16, CUDA events
    // over 20-200 calls after warm-up: 1532 TFLOP/s for 4096^3, 1652 for 4096 x 8192 x 8192, 1648
    // for 8192 x 4096 x 8192, 1610 for 8192^3 (pyptx.dev, "Performance", Blackwell GEMM table).
    // The tile/wave model gives these four within 2% at 0.76 of the BF16 peak (the H100's fitted
    // 0.85, which its FP8 runs barely constrain, would make them 10-14% fast). FP8 GEMMs keep the
    // H100's fitted fraction of the FP8 peak.
    gemm16: {
      max_efficiency: 0.76,
      rule: '16-bit GEMMs at 0.76 of the BF16 peak, where the tile/wave model gives cuBLAS\'s measured BF16 ' +
        'rates on a B200 within 2% (1532 to 1652 TFLOP/s for 4096^3 to 8192^3, PyTorch 2.8 / CUDA 12.8; ' +
        'pyptx.dev performance page)',
    },
    hardware: {
      board_power_W: 1000,
      collective_sms: 16,
      gpus_per_node: 8,
      hbm_GBps: 7700,
      hbm_GiB: 179,
      // Two Xeon Platinum 8570 of eight DDR5-5600 channels each (717 GB/s), 75% of it streamed;
      // PCIe Gen5 as the DGX H100's.
      host_memory_GBps: 538,
      inter_node_Gbps: 3200,
      intra_node_GBps: 900,
      pcie_GBps: 25,
      peak_fp16_tflops: 2250,
      peak_fp32_tflops: 75,
      peak_fp8_tflops: 4500,
      sm_count: 148,
    },
    source:
      'NVIDIA Blackwell datasheet, HGX B200 per GPU: 4.5 PFLOP/s FP16/BF16 and 9 PFLOP/s FP8 with ' +
      'sparsity (2.25 and 4.5 dense), 75 TFLOP/s FP32, 180 GB HBM3e at 7.7 TB/s (179 GiB as nvidia-smi reports it on an HGX B200, docs.vultr.com inference cookbook hardware overview), NVLink 5 ' +
      '1.8 TB/s (900 GB/s per direction), up to 1000 W; 148 SMs (CUDA device properties of a B200); ' +
      'DGX B200: 8 GPUs and 8 x 400 Gb/s ConnectX-7 (3200 Gbit/s) per node, two Xeon Platinum 8570 ' +
      '(eight DDR5-5600 channels each: 717 GB/s, 538 at 75% streamed), PCIe Gen5 (25 GB/s a GPU)',
  },
};

export function project(name) {
  const g = GPUS[name];
  const base = bases[g.from];
  const p = structuredClone(base);
  p.name = name;
  p.display_name = g.display_name;
  p.hardware = { ...g.hardware };
  const scale = g.hardware.intra_node_GBps / base.hardware.intra_node_GBps;
  p.communication.intra_node = base.communication.intra_node.map((c) => ({ ...c, busbw_GBps: c.busbw_GBps * scale }));
  let fp8Rule = 'an FP8 GEMM the fitted fraction of the FP8 peak';
  if (!(base.hardware.peak_fp8_tflops > 0)) {
    // An FP8 GEMM reaches the fraction of the FP8 peak a 16-bit one reaches of the 16-bit peak.
    p.compute.fp8_gemm_efficiency = base.compute.gemm_max_efficiency;
    fp8Rule = 'an FP8 GEMM the same fraction of the FP8 peak';
  }
  p.operator_table = [];
  let rules = RULES.replace('BASE', base.name).replace('FP8_RULE', fp8Rule);
  if (g.gemm16) {
    p.compute.gemm_max_efficiency = g.gemm16.max_efficiency;
    rules += '; ' + g.gemm16.rule;
  }
  if (g.attention) {
    const ratio = base.compute.attention_bwd_efficiency / base.compute.attention_fwd_efficiency;
    p.compute.attention_fwd_efficiency = g.attention.fwd_tflops / g.hardware.peak_fp16_tflops;
    p.compute.attention_bwd_efficiency = p.compute.attention_fwd_efficiency * ratio;
    rules = rules.replace('GEMM, attention and memory-bound efficiencies', 'GEMM and memory-bound efficiencies') +
      '; ' + g.attention.rule;
  }
  if (base.provenance?.kind === 'calibrated')
    rules += `; the base's fitted values are those of its calibration to its published runs (${base.name}'s provenance)`;
  p.provenance = {
    kind: 'projected',
    projected_from: base.name,
    hardware: g.source,
    compute: rules,
    communication: `intra-node bus bandwidth x ${scale} (NVLink ${g.hardware.intra_node_GBps} GB/s per direction against the ${base.name}'s ${base.hardware.intra_node_GBps}); the rest as the ${base.name}'s: ${base.provenance.communication}`,
    rules,
  };
  return p;
}

// The error of a projected profile on the published runs of its GPU (`checks`), as `vtrain
// validate` gives it, in the form `vtrain calibrate` records published runs (never fitted).
function recordChecks(name, p) {
  const checks = GPUS[name].checks;
  if (!checks) return p;
  const cli = join(root, 'build/native/vtrain');
  if (!existsSync(cli)) {
    console.error(`project-profiles: ${name} records its error on ${checks.map((c) => c.file).join(', ')}, ` +
                  'which needs the native build (cmake --build --preset native)');
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'vtrain-project-'));
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(p));
  const round = (x) => Number(x.toFixed(6));
  const published = checks.map(({ file: csv, framework, moe }) => {
    const r = spawnSync(cli, ['validate', join(root, 'profiles/published', csv), '--profile', file, '--json'],
                        { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) {
      console.error(`project-profiles: vtrain validate ${csv} failed:\n${r.stdout}${r.stderr}`);
      process.exit(2);
    }
    const v = JSON.parse(r.stdout);
    const span = (key) => [Math.min(...v.rows.map((x) => x[key])), Math.max(...v.rows.map((x) => x[key]))];
    return {
      file: `profiles/published/${csv}`,
      framework,
      gpus: span('num_gpus'),
      hidden: span('hidden'),
      mape_percent: round(v.mape_percent),
      max_abs_error_percent: round(v.max_abs_error_percent),
      moe,
      runs: v.runs,
      set: 'published',
    };
  });
  rmSync(dir, { recursive: true, force: true });
  p.provenance.calibration = {
    note: 'no parameter of this profile is fitted: these are checks of the projection on published runs of this GPU',
    command: 'node scripts/project-profiles.mjs (vtrain validate FILE --profile <projection> --json)',
    published,
  };
  return p;
}

function write(path, p) {
  writeFileSync(path, JSON.stringify(sortKeys(p), null, 2) + '\n');
  console.log(`wrote ${path}`);
}

// Keys in the order the core writes them (sorted), so that a rewrite by `vtrain calibrate` diffs cleanly.
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const h100 = args.indexOf('--h100');
  const dir = args.indexOf('--dir');  // where the H200 and B200 go (default: profiles/)
  const out = dir >= 0 ? args[dir + 1] : join(root, 'profiles');
  for (const name of ['h200-sxm-141gb', 'b200-sxm-180gb']) write(join(out, `${name}.json`), recordChecks(name, project(name)));
  if (h100 >= 0) write(args[h100 + 1], project('h100-sxm5-80gb'));
}
