# Same cuBLAS GEMM, three kinds of input data: the sweep's old timing inputs (multiples of 1/8 in
# [-1, 1]), its new ones (uniform in [-1, 1], 24 random bits), and torch.randn.
import torch, time
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
def bench(f, n=30):
    for _ in range(5): f()
    torch.cuda.synchronize(); s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
    s.record(); [f() for _ in range(n)]; e.record(); torch.cuda.synchronize(); return s.elapsed_time(e)/1e3/n
def data(kind, n, dt):
    if kind == "eighths": return (torch.randint(-8, 9, (n, n), device="cuda").float() / 8).to(dt)
    if kind == "uniform": return (torch.rand(n, n, device="cuda") * 2 - 1).to(dt)
    return torch.randn(n, n, device="cuda").to(dt)
torch.backends.cuda.matmul.allow_tf32 = True
for rep in range(2):
  for dt, name in [(torch.bfloat16, "bf16"), (torch.float16, "fp16"), (torch.float32, "tf32")]:
    for n in [4096, 8192]:
      for kind in ["eighths", "uniform", "randn"]:
        a = data(kind, n, dt); b = data(kind, n, dt)
        t = bench(lambda: a @ b)
        print(f"rep {rep} matmul {name} {n}^3 {kind:8s} {t*1e6:9.1f} us {2*n**3/t/1e12:7.1f} TFLOP/s")
