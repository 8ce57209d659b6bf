#!/usr/bin/env python3
"""vtrain-profile: time the kernels PyTorch training runs on this GPU, for `vtrain calibrate --from-profile`.

Why Python: the simulator predicts what a training framework's kernels cost, and the frameworks it
models (Megatron-LM, DeepSpeed, PyTorch FSDP) run PyTorch's kernels: its cuBLAS/cuBLASLt GEMMs,
its scaled-dot-product flash attention, its fused norm, activation, dropout and Adam kernels, and
NCCL through torch.distributed. Timing those same calls measures the software stack a user trains
with, not a re-implementation of it.

Usage (docs/profiler.md):
    vtrain profile-shapes > shapes.json
    python3 vtrain_profile.py --shapes shapes.json --out measurements.json [--budget-s 420]
    torchrun --nproc-per-node 8 vtrain_profile.py --shapes shapes.json --out measurements.json
    python3 vtrain_profile.py --shapes shapes.json --out m.json --dry-run   # no GPU, no torch: a self-test

The measurements file ("format": "vtrain-measurements") lists each measured kernel with its shape
and its median time over the trials, with the machine (GPU, clocks, driver, CUDA, cuBLAS and
PyTorch versions). Without torch and CUDA, --dry-run plans the same sweep and times it with a
made-up roofline, marked "synthetic": true: it checks the program, never a GPU.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

VERSION = "0.1.0"
E = 2  # bytes per 16-bit element

# Memory-bound kernels: name -> (HBM bytes per element moved, kernels launched per call).
MEMORY_KERNELS = {
    "layer_norm": (2 * E, 1),      # read x, write y
    "rms_norm": (2 * E, 1),
    "gelu": (2 * E, 1),
    "swiglu": (3 * E, 2),          # silu(gate) * up: two kernels in eager PyTorch
    "softmax": (2 * E, 1),
    "dropout": (2 * E + 1, 1),     # read x, write y and a one-byte mask
    "add": (3 * E, 1),             # read two, write one
    "memcpy": (2 * E, 1),
}
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"]


# ---------------------------------------------------------------------------------------------
# The plan: which kernels at which shapes, from `vtrain profile-shapes`; pure Python, no torch.

def plan_jobs(shapes, dtypes=("bf16",), fp8=False, max_fp8=64, world_size=1):
    """The list of measurements to take, each a dict with "kind" and its shape, in run order:
    the reference 8192^3 GEMM first, then GEMMs, attention, memory-bound kernels, the optimizer,
    collectives. Pure: the same shapes give the same plan."""
    if shapes.get("format") != "vtrain-profile-shapes":
        raise ValueError('shapes: "format" must be "vtrain-profile-shapes" (the output of vtrain profile-shapes)')
    jobs = [{"kind": "gemm", "dtype": "bf16", "m": 8192, "n": 8192, "k": 8192, "batch": 1, "reference": True}]
    gemms = sorted(shapes.get("gemm", []), key=lambda g: (g["m"] * g["n"] * g["k"] * g.get("batch", 1)))
    for dtype in dtypes:
        for g in gemms:
            jobs.append({"kind": "gemm", "dtype": dtype, "m": g["m"], "n": g["n"], "k": g["k"],
                         "batch": g.get("batch", 1)})
    if fp8:
        # FP8 through torch._scaled_mm: single GEMMs with every dimension a multiple of 16, largest first.
        eligible = [g for g in gemms if g.get("batch", 1) == 1 and all(g[d] % 16 == 0 for d in "mnk")]
        for g in sorted(eligible, key=lambda g: -g["m"] * g["n"] * g["k"])[:max_fp8]:
            jobs.append({"kind": "gemm", "dtype": "fp8", "m": g["m"], "n": g["n"], "k": g["k"], "batch": 1})
    for a in shapes.get("attention", []):
        for direction in ("fwd", "bwd"):
            jobs.append({"kind": "attention", "direction": direction, "seq": a["seq"], "head_dim": a["head_dim"],
                         "batch_heads": a["batch_heads"]})
    memory = shapes.get("memory", {})
    for name in memory.get("kernels", list(MEMORY_KERNELS)):
        if name not in MEMORY_KERNELS:
            continue
        per_element, _ = MEMORY_KERNELS[name]
        for b in memory.get("bytes", []):
            elements = max(1024, int(b // per_element) // 1024 * 1024)
            jobs.append({"kind": "memory", "kernel": name, "elements": elements})
    for n in shapes.get("optimizer", {}).get("params", []):
        jobs.append({"kind": "optimizer", "kernel": "adam", "params": int(n)})
    if world_size >= 2:
        groups = [g for g in (2, 4, 8, 16, 32, 64) if g <= world_size]
        if world_size not in groups:
            groups.append(world_size)
        for op in COLLECTIVES:
            for g in ([2] if op == "send_recv" else groups):
                for b in shapes.get("collectives", {}).get("bytes", []):
                    jobs.append({"kind": "collective", "op": op, "gpus": g, "bytes": int(b)})
    return jobs


def job_work(job):
    """(FLOPs, HBM bytes) the job's kernels execute: for the dry run's timer and the budget."""
    k = job["kind"]
    if k == "gemm":
        size = 1 if job["dtype"] == "fp8" else E
        m, n, kk, b = job["m"], job["n"], job["k"], job["batch"]
        return 2.0 * m * n * kk * b, size * (m * kk + kk * n + m * n) * b
    if k == "attention":
        s, d, bh = job["seq"], job["head_dim"], job["batch_heads"]
        flops = (0.5 * 4 if job["direction"] == "fwd" else 0.5 * 10) * bh * s * s * d
        return flops, (1 if job["direction"] == "fwd" else 2) * E * s * bh * 4 * d
    if k == "memory":
        return 0.0, memory_bytes(job)
    if k == "optimizer":
        return 0.0, 36.0 * job["params"]
    return 0.0, float(job["bytes"])


def memory_bytes(job):
    per_element, _ = MEMORY_KERNELS[job["kernel"]]
    return per_element * job["elements"]


def record_of(job, times_us):
    """The measurements file's entry for a job timed `times_us` (one time per trial, microseconds)."""
    med = statistics.median(times_us)
    spread = {"trials": len(times_us), "min_us": min(times_us), "max_us": max(times_us)}
    k = job["kind"]
    if k == "gemm":
        return "gemm", dict({"dtype": job["dtype"], "m": job["m"], "n": job["n"], "k": job["k"], "batch": job["batch"],
                             "time_us": med}, **spread)
    if k == "attention":
        return "attention", dict({"direction": job["direction"], "seq": job["seq"], "head_dim": job["head_dim"],
                                  "batch_heads": job["batch_heads"], "causal": True, "time_us": med}, **spread)
    if k == "memory":
        kernels = job.get("kernels", MEMORY_KERNELS[job["kernel"]][1])
        return "memory", dict({"kernel": job["kernel"], "elements": job["elements"], "bytes": memory_bytes(job),
                               "kernels": kernels, "time_us": med}, **spread)
    if k == "optimizer":
        return "optimizer", dict({"kernel": job["kernel"], "params": job["params"], "time_us": med}, **spread)
    return "collectives", dict({"op": job["op"], "gpus": job["gpus"], "bytes": job["bytes"], "time_us": med}, **spread)


def measurements_document(records, machine, settings, synthetic, notes):
    """The file `vtrain calibrate --from-profile` reads."""
    doc = {"format": "vtrain-measurements", "version": 1, "profiler_version": VERSION, "synthetic": synthetic,
           "machine": machine, "settings": settings, "notes": notes,
           "gemm": [], "attention": [], "memory": [], "optimizer": [], "collectives": []}
    for section, row in records:
        doc[section].append(row)
    ref = [r for s, r in records if s == "gemm" and r["m"] == r["n"] == r["k"] == 8192 and r["dtype"] == "bf16"]
    if ref:
        doc["reference"] = {"gemm_8192_bf16_tflops": 2 * 8192 ** 3 / (ref[0]["time_us"] * 1e-6) / 1e12}
    return doc


# ---------------------------------------------------------------------------------------------
# Timers: CUDA events on a GPU; a made-up roofline for the dry run.

class FakeTimer:
    """Times a job by a roofline (500 TFLOP/s, 3 TB/s, 5 us per kernel), with deterministic
    +-1% jitter per trial: the dry run's stand-in for a GPU. Never a measurement."""

    def __init__(self, tflops=500.0, GBps=3000.0, overhead_us=5.0):
        self.tflops, self.GBps, self.overhead_us = tflops, GBps, overhead_us
        self.state = 12345

    def _jitter(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return 1.0 + 0.01 * (2.0 * (self.state >> 11) / float(1 << 53) - 1.0)

    def time_job(self, job, warmup, trials):
        flops, nbytes = job_work(job)
        kernels = MEMORY_KERNELS[job["kernel"]][1] if job["kind"] == "memory" else 1
        base = max(flops / (self.tflops * 1e6), nbytes / (self.GBps * 1e3)) + kernels * self.overhead_us
        return [base * self._jitter() for _ in range(trials)]


def time_callable(torch, fn, warmup, trials, target_us=500.0, before=None, reps=None):
    """Median-ready list of per-call times (microseconds): `warmup` untimed calls, then `trials`
    trials, each CUDA events around enough back-to-back calls to last about target_us (or `reps`
    calls, where every rank of a collective must make the same number). `before`, if given, runs
    untimed before each timed call (e.g. a forward before a timed backward)."""
    for _ in range(warmup):
        if before:
            before()
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    # One call to size the trials.
    if before:
        before()
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    one = max(start.elapsed_time(end) * 1e3, 1.0)
    if reps is None:
        reps = 1 if before else max(1, min(1000, int(target_us / one)))
    out = []
    for _ in range(trials):
        if before:
            before()
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) * 1e3 / reps)
    return out


def count_kernels(torch, fn):
    """GPU kernels one call launches, by PyTorch's profiler; None when it cannot tell."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        n = sum(1 for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CUDA"))
        return n or None
    except Exception:  # the profiler is optional here
        return None


class CudaTimer:
    """Builds each job's tensors on the GPU and times PyTorch's kernels for it with CUDA events."""

    def __init__(self, torch, dist=None, rank=0):
        self.torch, self.dist, self.rank = torch, dist, rank
        self.dev = torch.device("cuda", torch.cuda.current_device())
        self.groups = {}

    def time_job(self, job, warmup, trials):
        return getattr(self, "_" + job["kind"])(job, warmup, trials)

    def _gemm(self, job, warmup, trials):
        t, dev = self.torch, self.dev
        m, n, k, b = job["m"], job["n"], job["k"], job["batch"]
        if job["dtype"] == "fp8":
            a = t.randn(m, k, device=dev).to(t.float8_e4m3fn)
            w = t.randn(n, k, device=dev).to(t.float8_e4m3fn).t()  # column-major, as cuBLASLt wants
            one = t.ones((), device=dev)
            fn = lambda: t._scaled_mm(a, w, scale_a=one, scale_b=one, out_dtype=t.bfloat16)
        else:
            dt = t.bfloat16 if job["dtype"] == "bf16" else t.float16
            if b == 1:
                a, w = t.randn(m, k, device=dev, dtype=dt), t.randn(k, n, device=dev, dtype=dt)
                fn = lambda: t.matmul(a, w)
            else:
                a, w = t.randn(b, m, k, device=dev, dtype=dt), t.randn(b, k, n, device=dev, dtype=dt)
                fn = lambda: t.bmm(a, w)
        return time_callable(t, fn, warmup, trials)

    def _attention(self, job, warmup, trials):
        t, dev = self.torch, self.dev
        F = t.nn.functional
        s, d, bh = job["seq"], job["head_dim"], job["batch_heads"]
        q, k, v = (t.randn(1, bh, s, d, device=dev, dtype=t.bfloat16, requires_grad=True) for _ in range(3))
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            ctx = lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION)
        except ImportError:  # older PyTorch
            ctx = lambda: t.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False)
        with ctx():
            if job["direction"] == "fwd":
                with t.no_grad():
                    return time_callable(t, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), warmup, trials)
            state = {}
            grad = t.randn(1, bh, s, d, device=dev, dtype=t.bfloat16)

            def forward():
                state["out"] = F.scaled_dot_product_attention(q, k, v, is_causal=True)

            return time_callable(t, lambda: state["out"].backward(grad), warmup, trials, before=forward)

    def _memory(self, job, warmup, trials):
        t, dev = self.torch, self.dev
        F = t.nn.functional
        n, name = job["elements"], job["kernel"]
        h = 4096 if n % 4096 == 0 else 1024
        x = t.randn(n // h, h, device=dev, dtype=t.bfloat16)
        y = t.randn_like(x)
        wgt, bias = t.ones(h, device=dev, dtype=t.bfloat16), t.zeros(h, device=dev, dtype=t.bfloat16)
        if name == "layer_norm":
            fn = lambda: F.layer_norm(x, (h,), wgt, bias)
        elif name == "rms_norm":
            if not hasattr(F, "rms_norm"):
                raise RuntimeError("this PyTorch has no fused rms_norm (2.4 and later)")
            fn = lambda: F.rms_norm(x, (h,), wgt)
        elif name == "gelu":
            fn = lambda: F.gelu(x)
        elif name == "swiglu":
            fn = lambda: F.silu(x) * y
        elif name == "softmax":
            fn = lambda: t.softmax(x, dim=-1)
        elif name == "dropout":
            fn = lambda: F.dropout(x, p=0.1, training=True)
        elif name == "add":
            fn = lambda: x + y
        else:
            fn = lambda: y.copy_(x)
        kernels = count_kernels(t, fn)
        times = time_callable(t, fn, warmup, trials)
        if kernels:
            job["kernels"] = kernels  # what this PyTorch launched (e.g. an unfused RMSNorm), for the record
        return times

    def _optimizer(self, job, warmup, trials):
        t = self.torch
        p = t.nn.Parameter(t.zeros(job["params"], device=self.dev, dtype=t.float32))
        p.grad = t.randn_like(p)
        opt = t.optim.Adam([p], lr=1e-4, fused=True)
        out = time_callable(t, opt.step, warmup, trials)
        del opt, p
        t.cuda.empty_cache()
        return out

    def _collective(self, job, warmup, trials):
        t, dist = self.torch, self.dist
        g, op = job["gpus"], job["op"]
        if g not in self.groups:
            self.groups[g] = dist.new_group(list(range(g)))  # every rank takes part in making it
        group = self.groups[g]
        world = dist.get_world_size()
        nbytes = job["bytes"]
        elements = max(g, nbytes // E // g * g)
        if self.rank >= g:
            # Outside the group: nothing to time, but stay in step with those inside.
            dist.barrier()
            return [0.0] * trials
        buf = t.empty(elements, device=self.dev, dtype=t.bfloat16)
        if op == "all_reduce":
            fn = lambda: dist.all_reduce(buf, group=group)
        elif op == "all_gather":
            shard = t.empty(elements // g, device=self.dev, dtype=t.bfloat16)
            fn = lambda: dist.all_gather_into_tensor(buf, shard, group=group)
        elif op == "reduce_scatter":
            shard = t.empty(elements // g, device=self.dev, dtype=t.bfloat16)
            fn = lambda: dist.reduce_scatter_tensor(shard, buf, group=group)
        elif op == "all_to_all":
            out = t.empty_like(buf)
            fn = lambda: dist.all_to_all_single(out, buf, group=group)
        else:  # send_recv: rank 0 sends to rank 1, rank 1 receives; the receiver's time counts
            fn = (lambda: dist.send(buf, 1)) if self.rank == 0 else (lambda: dist.recv(buf, 0))
        # A fixed number of calls per trial, the same on every rank; many, so that the ranks'
        # uneven start is a small part of the time.
        times = time_callable(t, fn, warmup, trials, reps=20 if nbytes <= 64 * 2 ** 20 else 3)
        # The slowest rank's time is the collective's.
        worst = t.tensor(times, device=self.dev, dtype=t.float64)
        dist.all_reduce(worst, op=dist.ReduceOp.MAX, group=group)
        dist.barrier()
        del world
        return worst.tolist()


# ---------------------------------------------------------------------------------------------
# The machine.

def run_quiet(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def cublas_version():
    """cuBLAS's version from the library PyTorch loaded (cublasGetProperty), or ""."""
    try:
        import ctypes
        for name in ("libcublas.so.12", "libcublas.so.11", "libcublas.so"):
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                lib = None
        if lib is None:
            return ""
        parts = []
        for prop in range(3):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
            v = ctypes.c_int()
            if lib.cublasGetProperty(prop, ctypes.byref(v)) != 0:
                return ""
            parts.append(str(v.value))
        return ".".join(parts)
    except Exception:  # a best-effort record
        return ""


def machine_description(torch):
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    m = {"gpu_name": props.name, "gpu_count": torch.cuda.device_count(), "sm_count": props.multi_processor_count,
         "memory_GiB": round(props.total_memory / 2 ** 30, 2),
         "compute_capability": "%d.%d" % (props.major, props.minor),
         "torch": torch.__version__, "cuda": torch.version.cuda or "",
         "cudnn": str(torch.backends.cudnn.version() or ""), "cublas": cublas_version(),
         "nccl": ".".join(map(str, torch.cuda.nccl.version())) if hasattr(torch.cuda, "nccl") else "",
         "python": platform.python_version(), "host_cpu": platform.processor() or platform.machine()}
    q = run_quiet(["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
                   "power.limit,temperature.gpu", "--format=csv,noheader,nounits", "-i", str(torch.cuda.current_device())])
    if q:
        f = [x.strip() for x in q.splitlines()[0].split(",")]
        keys = ["driver", "clock_sm_MHz", "clock_sm_max_MHz", "clock_mem_MHz", "clock_mem_max_MHz", "power_limit_W",
                "temperature_C"]
        m.update({k: v for k, v in zip(keys, f)})
    return m


# ---------------------------------------------------------------------------------------------

def sweep(jobs, timer, warmup, trials, budget_s, log, clock=time.monotonic, keep=None):
    """Times the jobs in order until the budget is spent (the reference GEMM always); returns
    (records, notes). An interrupt (run-h200.sh's hard stop) keeps what was measured."""
    records, notes, failed = [], [], {}
    start = clock()
    done = 0
    try:
        for i, job in enumerate(jobs):
            if clock() - start > budget_s and not job.get("reference"):
                notes.append("time budget of %.0f s spent: %d of %d planned measurements skipped" % (
                    budget_s, len(jobs) - i, len(jobs)))
                break
            done = i + 1
            if keep is not None and not keep(job):
                continue
            try:
                times = timer.time_job(job, warmup, trials)
            except KeyboardInterrupt:
                raise
            except Exception as e:  # a shape this stack cannot run: record why, go on
                key = job["kind"] + ":" + job.get("kernel", job.get("dtype", job.get("op", "")))
                failed.setdefault(key, str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
                continue
            if times and min(times) > 0:
                records.append(record_of(job, times))
            if log and i % 50 == 0:
                log("  %d/%d jobs, %.0f s" % (i, len(jobs), clock() - start))
    except KeyboardInterrupt:
        notes.append("interrupted after %.0f s at planned measurement %d of %d: the ones before it kept" % (
            clock() - start, done, len(jobs)))
    for key, why in sorted(failed.items()):
        notes.append("%s failed: %s" % (key, why))
    return records, notes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", required=True, help="output of `vtrain profile-shapes` (a JSON file)")
    ap.add_argument("--out", required=True, help="measurements file to write (JSON)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--trials", type=int, default=7)
    ap.add_argument("--budget-s", type=float, default=420, help="stop planning new measurements after this (s)")
    ap.add_argument("--dtypes", default="bf16", help="16-bit GEMM formats, comma-separated: bf16,fp16")
    ap.add_argument("--no-fp8", action="store_true", help="skip FP8 GEMMs on Hopper and later")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU, no torch: plan the sweep and time it with a made-up roofline (synthetic output)")
    a = ap.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr, flush=True)
    with open(a.shapes) as f:
        shapes = json.load(f)
    dtypes = tuple(d for d in a.dtypes.split(",") if d)
    settings = {"warmup": a.warmup, "trials": a.trials, "budget_s": a.budget_s, "statistic": "median",
                "timing": "CUDA events around back-to-back calls lasting about 0.5 ms, per call"}
    if a.dry_run:
        jobs = plan_jobs(shapes, dtypes, fp8=not a.no_fp8)
        timer = FakeTimer()
        records, notes = sweep(jobs, timer, a.warmup, a.trials, a.budget_s, log)
        est = sum(sum(timer.time_job(j, 0, 1)) * (a.warmup + a.trials) for j in jobs) * 1e-6
        notes.append("DRY RUN: times from a made-up roofline, not a GPU; %d measurements planned, about %.0f s of "
                     "kernel time at the roofline's rates" % (len(jobs), est))
        doc = measurements_document(records, {"gpu_name": "dry run (no GPU)", "gpu_count": 1}, settings, True, notes)
        doc["dry_run"] = True
    else:
        import torch
        if not torch.cuda.is_available():
            sys.exit("error: no CUDA GPU visible to PyTorch (--dry-run checks the program without one)")
        dist, rank, world = None, 0, int(os.environ.get("WORLD_SIZE", "1"))
        if world > 1:
            import torch.distributed as dist
            rank = int(os.environ.get("RANK", "0"))
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
            dist.init_process_group("nccl")
        torch.backends.cuda.matmul.allow_tf32 = False
        cap = torch.cuda.get_device_capability()
        fp8 = not a.no_fp8 and cap >= (8, 9) and hasattr(torch, "_scaled_mm")
        jobs = plan_jobs(shapes, dtypes, fp8=fp8, world_size=world)
        timer = CudaTimer(torch, dist, rank)
        t0 = time.monotonic()
        if rank == 0:
            log("vtrain-profile %s on %s: %d measurements planned" % (VERSION, torch.cuda.get_device_name(), len(jobs)))
        # Kernels on rank 0 alone (the others wait); collectives on every rank.
        records, notes = ([], [])
        if rank == 0:
            records, notes = sweep(jobs, timer, a.warmup, a.trials, a.budget_s, log,
                                   keep=lambda j: j["kind"] != "collective")
        if world > 1:
            dist.barrier()
            # No time budget here: every rank must run the same collectives, or they wait on each other.
            c_records, c_notes = sweep([j for j in jobs if j["kind"] == "collective"], timer, a.warmup, a.trials,
                                       float("inf"), log if rank == 0 else None)
            records += c_records
            notes += c_notes
        if rank != 0:
            dist.destroy_process_group()
            return 0
        machine = machine_description(torch)
        machine["world_size"] = world
        doc = measurements_document(records, machine, settings, False, notes)
        doc["seconds"] = round(time.monotonic() - t0, 1)
        if fp8:
            doc["settings"]["fp8"] = "torch._scaled_mm, e4m3 inputs, bf16 output, unit scales"
        if world > 1:
            dist.destroy_process_group()
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    ref = doc.get("reference", {}).get("gemm_8192_bf16_tflops")
    log("wrote %s: %d GEMMs, %d attention, %d memory-bound, %d optimizer, %d collective times%s" % (
        a.out, len(doc["gemm"]), len(doc["attention"]), len(doc["memory"]), len(doc["optimizer"]),
        len(doc["collectives"]), "; 8192^3 bf16 GEMM %.0f TFLOP/s" % ref if ref else ""))
    for n in doc["notes"]:
        log("note: " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
