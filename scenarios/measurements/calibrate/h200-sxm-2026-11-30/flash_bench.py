# FlashAttention-2's published benchmark, re-run through PyTorch's scaled_dot_product_attention
# on this GPU: hidden 2048 (head dim 64 -> 32 heads, 128 -> 16 heads), batch = 16384 / seq_len,
# seq_len 512..16384, causal and not, dropout 0. TFLOP/s as benchmarks/benchmark_flash_attention.py
# counts them (forward 4*b*s^2*h*d, halved when causal; backward 2.5x; forward+backward 3.5x).
# Backends: FLASH_ATTENTION (PyTorch's FlashAttention-2 port) in fp16 and bf16, and CUDNN_ATTENTION
# in bf16 for the record. Inputs torch.randn; timed with CUDA events, median of the repeats.
import json, statistics, sys, time, traceback
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def time_it(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    return statistics.median(ts), ts


def one(backend, dtype, causal, d, s):
    h = 2048 // d
    b = 16384 // s
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dtype, generator=g).requires_grad_()
               for _ in range(3))
    do = torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g)

    def fwd():
        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2), is_causal=causal)

    def fwd_bwd():  # autograd.grad: fresh gradients, no accumulation into .grad
        o = fwd()
        torch.autograd.grad(o, (q, k, v), do)

    with sdpa_kernel(backend):
        t_f, _ = time_it(fwd, 10)
        t_fb, all_fb = time_it(fwd_bwd, 10)
    f = 4 * b * s * s * h * d / (2 if causal else 1)
    return dict(batch=b, heads=h, fwd_s=t_f, fwd_bwd_s=t_fb, fwd_bwd_s_all=all_fb,
                fwd_tflops=f / t_f / 1e12, fwd_bwd_tflops=3.5 * f / t_fb / 1e12)


def main():
    out = sys.argv[1]
    env = dict(torch=torch.__version__, cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
               device=torch.cuda.get_device_name(0), capability=list(torch.cuda.get_device_capability(0)),
               date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    print(json.dumps(env), flush=True)
    res = dict(environment=env, rows=[])
    plan = [(SDPBackend.FLASH_ATTENTION, "flash", torch.float16),
            (SDPBackend.FLASH_ATTENTION, "flash", torch.bfloat16),
            (SDPBackend.CUDNN_ATTENTION, "cudnn", torch.bfloat16)]
    for backend, bname, dtype in plan:
        for causal in (False, True):
            for d in (64, 128):
                for s in (512, 1024, 2048, 4096, 8192, 16384):
                    row = dict(backend=bname, dtype=str(dtype).split(".")[-1], causal=causal,
                               head_dim=d, seq_len=s)
                    try:
                        row.update(one(backend, dtype, causal, d, s))
                    except Exception:  # noqa: BLE001
                        row["error"] = traceback.format_exc()[-400:]
                    res["rows"].append(row)
                    print(json.dumps({k: v for k, v in row.items() if k != "fwd_bwd_s_all"}),
                          flush=True)
                    torch.cuda.empty_cache()
        with open(out, "w") as f:
            json.dump(res, f, indent=1)


main()
