#!/usr/bin/python3
"""Validates every report kind the CLI emits without a device or MPI (memory, the DeepSpeed memory
estimate, simulate, compare, search, suite, collective, fit, the presets listing) against its
JSON Schema (reports/schemas/*.schema.json, draft 2020-12) with a real validator: Debian's python3-jsonschema
(installed by .ci/setup). Also validates the shipped GPU profiles against the hardware-profile
schema. Usage: validate_reports.py SHARDSIM_BINARY SOURCE_DIR. Exit 0 when all conform, 1 with
one line per violation, 77 (ctest: skipped) when jsonschema is not installed.

The reports that need MPI runs (calibration samples, fitted profiles, validation reports) are made
by the MPI tests, which call: validate_reports.py --documents SOURCE_DIR KIND=FILE... (KIND: a
schema's name without .schema.json), with the same exit codes."""
import json
import pathlib
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("skipped: python3-jsonschema is not installed (.ci/setup installs it)")
    sys.exit(77)

binary, source = sys.argv[1], pathlib.Path(sys.argv[2])
schemas = source / "reports" / "schemas"
failures = []


def finish():
    for f in failures:
        print(f)
    print(f"{len(failures)} schema violation(s)")
    sys.exit(1 if failures else 0)


def validate(kind, document, what):
    schema = json.loads((schemas / f"{kind}.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for error in validator.iter_errors(document):
        path = "/" + "/".join(str(p) for p in error.absolute_path)
        failures.append(f"{what}: {kind}: {path}: {error.message[:200]}")


def run(kind, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True)
    what = "shardsim " + " ".join(args)
    if result.returncode != 0:
        failures.append(f"{what}: exit {result.returncode}: {result.stderr.strip()[:300]}")
        return
    validate(kind, json.loads(result.stdout), what)


if binary == "--documents":
    for pair in sys.argv[3:]:
        kind, _, path = pair.partition("=")
        try:
            validate(kind, json.loads(pathlib.Path(path).read_text()), path)
        except (OSError, ValueError) as e:
            failures.append(f"{path}: {kind}: cannot read: {e}")
    finish()

# Every schema must itself be a valid draft 2020-12 schema.
for path in sorted(schemas.glob("*.schema.json")):
    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
    except jsonschema.SchemaError as e:
        failures.append(f"{path.name}: not a valid schema: {e.message[:200]}")

examples = json.loads(subprocess.run([binary, "presets", "examples", "--json"], capture_output=True,
                                     text=True, check=True).stdout)
names = [e["name"] for e in examples["examples"]]
for name in names:
    run("memory-report", "memory", name, "--json")
    for mode in ("des", "analytic"):
        run("simulate-report", "simulate", name, "--json", "--mode", mode)
# Plans that cannot run are reports too (memory that does not fit; no layout).
run("simulate-report", "simulate", "llama3-8b-8xh100", "--json", "--set", "parallel.zero=0",
    "--set", "parallel.tp=1")
run("memory-report", "memory", "llama3-8b-8xh100", "--json", "--set", "parallel.zero=0",
    "--set", "parallel.tp=1")
# A plan that cannot be built (3 micro-batches under the interleaved schedule on 4 stages; an
# expert group that does not divide the GPUs): no plan, memory, time or throughput.
interleaved = ("--set", "parallel.tp=1", "--set", "parallel.pp=4", "--set", "parallel.vpp=2",
               "--set", "parallel.schedule=interleaved", "--set", "training.global_batch=6")
run("simulate-report", "simulate", "llama3-8b-8xh100", "--json", *interleaved)
run("memory-report", "memory", "llama3-8b-8xh100", "--json", *interleaved)
run("simulate-report", "simulate", "mixtral-8x7b-16xh100", "--json", "--set", "parallel.tp=4",
    "--set", "parallel.cp=2")
run("simulate-report", "simulate", "llama3-8b-8xh100", "--json", "--explain")
run("simulate-report", "simulate", "mixtral-8x7b-16xh100", "--json", "--ops")
run("compare-report", "compare", "llama3-8b-8xh100", "--json", "--vary", "parallel.zero=0,1,3",
    "--vary", "parallel.tp=1,3")
run("search-report", "search", "llama3-8b-8xh100", "--json", "--top", "3")
run("suite-report", "suite", "--json")
run("deepspeed-memory-report", "memory", "llama3-8b-8xh100", "--json", "--estimator", "deepspeed",
    "--set", "parallel.zero=3")
# One node (fitted segments of a fitted network) and across nodes (the topology formula).
run("collective-report", "collective", "--gpu", "h100-sxm", "--op", "all_reduce", "--bytes", "1e6",
    "--ranks", "8", "--json")
run("collective-report", "collective", "--gpu", "a100-sxm-80gb", "--op", "all_gather", "--bytes",
    "1e9", "--ranks", "64", "--json")
run("presets-listing", "presets", "--json")
for kind in ("models", "gpus", "clusters", "examples", "frameworks"):
    run("presets-listing", "presets", kind, "--json")
# fit from an nccl-tests log (segments, topology) and from GEMM/HBM tables (inputs); the fitted
# profiles go to a temporary folder.
measurements = source / "scenarios" / "measurements"
with tempfile.TemporaryDirectory() as tmp:
    run("fit-report", "fit", "--json", "--network-base", "dgx-h100-datasheet",
        "--nccl-tests", str(measurements / "nccl-tests" / "aws-p5-h100-efa-2node_all_reduce_16.log"),
        "--network-output", str(pathlib.Path(tmp) / "network.json"))
    run("fit-report", "fit", "--json", "--base", "h100-sxm-datasheet", "--name", "h",
        "--device", "H100 80GB HBM3 SXM|NVIDIA H100 SXM",
        "--gemm", str(measurements / "gemm" / "azure_cublaslt_gemm_a100_h100_h200.csv"),
        "--gemm-best", str(measurements / "gemm" / "mamf_best_shape_nvidia.csv"),
        "--hbm", str(measurements / "gemm" / "azure_hbm_stream_bandwidth.csv"),
        "-o", str(pathlib.Path(tmp) / "gpu.json"))
    # fit from calibration samples: a quick CPU calibration on 2 ranks (the samples fuzz seed),
    # its report (inputs[] of kind samples) and the profile it writes.
    samples = source / "tests" / "fuzz" / "seeds" / "samples" / "cpu-quick-2ranks.json"
    validate("calibration-samples", json.loads(samples.read_text()),
             str(samples.relative_to(source)))
    run("fit-report", "fit", "--json", "--samples", str(samples),
        "-o", str(pathlib.Path(tmp) / "cpu.json"))
    validate("hardware-profile", json.loads((pathlib.Path(tmp) / "cpu.json").read_text()),
             "fit --samples profile")

# The samples the GPU runs wrote (real documents, committed unchanged).
for path in sorted((measurements / "calibrate").glob("*/*.samples.json")):
    validate("calibration-samples", json.loads(path.read_text()), str(path.relative_to(source)))

for path in sorted((source / "scenarios" / "gpus").rglob("*.json")):  # measured/ too
    validate("hardware-profile", json.loads(path.read_text()), str(path.relative_to(source)))

# The validator itself must reject a report that breaks its schema (here: no "time").
broken = json.loads(subprocess.run([binary, "simulate", "llama3-8b-8xh100", "--json"],
                                   capture_output=True, text=True, check=True).stdout)
time_section = broken.pop("time")
before = len(failures)
validate("simulate-report", broken, "self-check")
if len(failures) == before:
    failures.append("self-check: a simulate report without 'time' passed its schema")
else:
    del failures[before:]

# ... and a plan-less report that carries a section (here: "time") or calls itself feasible.
planless = json.loads(subprocess.run([binary, "simulate", "llama3-8b-8xh100", "--json",
                                      *interleaved], capture_output=True, text=True,
                                     check=True).stdout)
for name, doc in (("with time", {**planless, "time": time_section}),
                  ("feasible", {**planless, "feasibility": {"feasible": True, "reasons": []}})):
    before = len(failures)
    validate("simulate-report", doc, "self-check")
    if len(failures) == before:
        failures.append(f"self-check: a plan-less simulate report {name} passed its schema")
    else:
        del failures[before:]

finish()
