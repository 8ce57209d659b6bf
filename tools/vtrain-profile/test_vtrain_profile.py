"""vtrain-profile's planning, timing loop and file format, without torch or a GPU
(python3 -m unittest discover tools/vtrain-profile; run by tests/js/profiler.test.mjs)."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vtrain_profile as vp  # noqa: E402

SHAPES = {
    "format": "vtrain-profile-shapes", "version": 1,
    "gemm": [{"m": 4096, "n": 3072, "k": 1024, "batch": 1}, {"m": 64, "n": 64, "k": 64, "batch": 8},
             {"m": 100, "n": 96, "k": 48, "batch": 1}],
    "attention": [{"seq": 2048, "head_dim": 128, "batch_heads": 16}],
    "memory": {"kernels": ["layer_norm", "dropout", "no_such_kernel"], "bytes": [65536, 262144]},
    "optimizer": {"params": [1048576]},
    "collectives": {"ops": vp.COLLECTIVES, "bytes": [4096, 16384]},
}


class Clock:
    """A clock that advances one second per reading."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 1.0
        return self.t


class FixedTimer:
    """Every trial of a job takes its FLOPs at 1 TFLOP/s plus 10 us; records the jobs timed."""

    def __init__(self):
        self.seen = []

    def time_job(self, job, warmup, trials):
        self.seen.append(job)
        if job["kind"] == "memory" and job["kernel"] == "dropout":
            raise RuntimeError("no dropout here\nsecond line")
        flops, nbytes = vp.job_work(job)
        return [flops / 1e6 + nbytes / 1e6 + 10.0 + i for i in range(trials)]


class PlanTest(unittest.TestCase):
    def test_plan_order_and_contents(self):
        jobs = vp.plan_jobs(SHAPES, ("bf16", "fp16"), fp8=True, world_size=1)
        self.assertTrue(jobs[0]["reference"])
        self.assertEqual((jobs[0]["m"], jobs[0]["n"], jobs[0]["k"]), (8192, 8192, 8192))
        gemm = [j for j in jobs[1:] if j["kind"] == "gemm"]
        self.assertEqual(len([j for j in gemm if j["dtype"] == "bf16"]), 3)
        self.assertEqual(len([j for j in gemm if j["dtype"] == "fp16"]), 3)
        # FP8 only where every dimension is a multiple of 16 and the GEMM is not batched.
        self.assertEqual([(j["m"], j["n"], j["k"]) for j in gemm if j["dtype"] == "fp8"], [(4096, 3072, 1024)])
        # Smallest GEMM first within a format.
        bf16 = [j["m"] * j["n"] * j["k"] * j["batch"] for j in gemm if j["dtype"] == "bf16"]
        self.assertEqual(bf16, sorted(bf16))
        self.assertEqual([j["direction"] for j in jobs if j["kind"] == "attention"], ["fwd", "bwd"])
        memory = [j for j in jobs if j["kind"] == "memory"]
        self.assertEqual({j["kernel"] for j in memory}, {"layer_norm", "dropout"})  # unknown names skipped
        ln = [j for j in memory if j["kernel"] == "layer_norm"]
        self.assertEqual([vp.memory_bytes(j) for j in ln], [65536, 262144])
        self.assertEqual([j for j in jobs if j["kind"] == "collective"], [])  # one GPU: no collectives

    def test_collectives_over_group_sizes(self):
        jobs = vp.plan_jobs(SHAPES, world_size=8)
        coll = [j for j in jobs if j["kind"] == "collective"]
        self.assertEqual(sorted({j["gpus"] for j in coll if j["op"] == "all_reduce"}), [2, 4, 8])
        self.assertEqual({j["gpus"] for j in coll if j["op"] == "send_recv"}, {2})
        self.assertEqual(len(coll), 4 * 3 * 2 + 2)
        six = vp.plan_jobs(SHAPES, world_size=6)
        self.assertEqual(sorted({j["gpus"] for j in six if j.get("op") == "all_gather"}), [2, 4, 6])

    def test_rejects_other_files(self):
        with self.assertRaises(ValueError):
            vp.plan_jobs({"format": "vtrain-measurements"})


class SweepTest(unittest.TestCase):
    def test_median_records_and_failures(self):
        jobs = vp.plan_jobs(SHAPES)
        timer = FixedTimer()
        records, notes = vp.sweep(jobs, timer, 1, 5, budget_s=1e9, log=None)
        self.assertEqual(len(timer.seen), len(jobs))
        gemm = [r for s, r in records if s == "gemm"]
        ref = gemm[0]
        flops, nbytes = vp.job_work(jobs[0])
        self.assertAlmostEqual(ref["time_us"], flops / 1e6 + nbytes / 1e6 + 10.0 + 2)  # median of +0..+4
        self.assertEqual((ref["trials"], ref["max_us"] - ref["min_us"]), (5, 4))
        self.assertFalse(any(r.get("kernel") == "dropout" for s, r in records))
        self.assertEqual(notes, ["memory:dropout failed: no dropout here"])

    def test_kernel_count_the_timer_found_is_recorded(self):
        job = {"kind": "memory", "kernel": "rms_norm", "elements": 4096}
        self.assertEqual(vp.record_of(job, [1.0])[1]["kernels"], 1)
        job["kernels"] = 4  # e.g. an unfused RMSNorm
        section, row = vp.record_of(job, [3.0, 1.0, 2.0])
        self.assertEqual((section, row["kernels"], row["bytes"], row["time_us"]), ("memory", 4, 4 * 4096, 2.0))

    def test_budget_stops_but_keeps_the_reference(self):
        jobs = vp.plan_jobs(SHAPES)
        records, notes = vp.sweep(jobs, FixedTimer(), 0, 3, budget_s=2.5, log=None, clock=Clock())
        self.assertTrue(records[0][1]["m"] == 8192)
        self.assertLess(len(records), len(jobs))
        self.assertIn("time budget", notes[0])

    def test_an_interrupt_keeps_what_was_measured(self):
        class Interrupting(FixedTimer):
            def time_job(self, job, warmup, trials):
                if len(self.seen) == 3:
                    raise KeyboardInterrupt
                return super().time_job(job, warmup, trials)

        records, notes = vp.sweep(vp.plan_jobs(SHAPES), Interrupting(), 0, 3, budget_s=1e9, log=None)
        self.assertEqual(len(records), 3)
        self.assertIn("interrupted", notes[0])

    def test_document(self):
        jobs = vp.plan_jobs(SHAPES)
        records, notes = vp.sweep(jobs, vp.FakeTimer(), 0, 3, budget_s=1e9, log=None)
        doc = vp.measurements_document(records, {"gpu_name": "x"}, {"trials": 3}, True, notes)
        self.assertEqual(doc["format"], "vtrain-measurements")
        self.assertTrue(doc["synthetic"])
        self.assertEqual(doc["profiler_version"], vp.VERSION)
        self.assertEqual(len(doc["attention"]), 2)
        self.assertEqual({m["kernel"] for m in doc["memory"]}, {"layer_norm", "dropout"})
        self.assertEqual(doc["optimizer"][0]["params"], 1048576)
        # The fake roofline: 2 x 8192^3 FLOPs at 500 TFLOP/s plus 5 us, +-1%.
        self.assertAlmostEqual(doc["reference"]["gemm_8192_bf16_tflops"], 2 * 8192 ** 3 / (2 * 8192 ** 3 / 500e6 + 5) / 1e6,
                               delta=6)


class DryRunTest(unittest.TestCase):
    def test_dry_run_writes_a_synthetic_file(self):
        with tempfile.TemporaryDirectory() as d:
            shapes, out = os.path.join(d, "s.json"), os.path.join(d, "m.json")
            with open(shapes, "w") as f:
                json.dump(SHAPES, f)
            self.assertEqual(vp.main(["--shapes", shapes, "--out", out, "--dry-run", "--trials", "3"]), 0)
            with open(out) as f:
                doc = json.load(f)
            self.assertTrue(doc["dry_run"] and doc["synthetic"])
            self.assertEqual(doc["machine"]["gpu_name"], "dry run (no GPU)")
            self.assertTrue(any("DRY RUN" in n for n in doc["notes"]))
            self.assertEqual(len(doc["gemm"]), 1 + 3 + 1)  # reference, bf16, fp8


if __name__ == "__main__":
    unittest.main()
