#!/usr/bin/env python3
"""Converts one device's bf16 rows of XLA's default matmul perf table (a GemmPerfTable textproto,
xla/service/gpu/model/default_matmul_perf_table.txtpb in github.com/openxla/xla) into the GEMM CSV
columns `shardsim fit --gemm` reads. Run once to make xla_matmul_perf_table_h100_bf16.csv; nothing
runs it at build, test or run time.

    xla_perf_table_to_csv.py TABLE.txtpb DEVICE_KEY GPU_LABEL > OUT.csv   (header lines not included)
"""
import re
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, key, label = sys.argv[1:]
    text = open(path, encoding="utf-8").read()
    blocks = re.split(r'\n  key: "', text)
    block = next((b for b in blocks[1:] if b.split('"', 1)[0] == key), None)
    if block is None:
        print(f"{path}: no device key {key!r}", file=sys.stderr)
        return 2
    entry = re.compile(r"b: (\d+)\s+m: (\d+)\s+n: (\d+)\s+k: (\d+)((?:\s+flops \{[^}]*\})+)")
    print("gpu,dtype,m,n,k,batch,tflops,software")
    rows = 0
    for b, m, n, k, flops in entry.findall(block):
        values = dict(re.findall(r'key: "([^"]+)" value: (\d+)', flops))
        v = values.get("bf16xbf16->bf16")
        if v is None:
            continue
        # FLOP/s in the table (2*b*m*n*k / median kernel time); TFLOP/s with 4 decimals.
        print(f"{label},bf16,{m},{n},{k},{b},{int(v) / 1e12:.4f},XLA matmul_perf_table_gen")
        rows += 1
    print(f"{rows} rows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
