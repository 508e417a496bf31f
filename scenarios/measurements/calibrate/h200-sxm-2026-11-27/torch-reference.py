# The PyTorch cross-check run on the H200 (2026-11-27); its output is torch-reference.txt.
import torch, time
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
def bench(f, n=20):
    for _ in range(3): f()
    torch.cuda.synchronize(); s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
    s.record(); [f() for _ in range(n)]; e.record(); torch.cuda.synchronize(); return s.elapsed_time(e)/1e3/n
for dt,name in [(torch.bfloat16,"bf16"),(torch.float16,"fp16"),(torch.float32,"fp32")]:
    for n in [1024,4096,8192]:
        a=torch.randn(n,n,device="cuda",dtype=dt); b=torch.randn(n,n,device="cuda",dtype=dt)
        t=bench(lambda: a@b); print(f"matmul {name} {n}^3 {t*1e6:.1f} us {2*n**3/t/1e12:.1f} TFLOP/s")
torch.backends.cuda.matmul.allow_tf32=True
a=torch.randn(8192,8192,device="cuda"); t=bench(lambda: a@a); print(f"matmul tf32 8192^3 {2*8192**3/t/1e12:.1f} TFLOP/s")
x=torch.randn(256*1024*1024//4,device="cuda"); y=torch.empty_like(x); t=bench(lambda: y.copy_(x)); print(f"d2d copy 256 MiB {2*x.numel()*4/t/1e9:.0f} GB/s (read+write)")
z=torch.zeros(16,device="cuda"); torch.cuda.synchronize()
for k in range(3):
    t0=time.perf_counter(); [z.add_(1.0) for _ in range(20000)]; torch.cuda.synchronize(); t1=time.perf_counter()
    print(f"eager add_ dispatch {((t1-t0)/20000)*1e6:.2f} us/op")
l=torch.nn.Linear(64,64,device="cuda"); inp=torch.randn(8,64,device="cuda")
for k in range(3):
    t0=time.perf_counter(); [l(inp) for _ in range(10000)]; torch.cuda.synchronize(); t1=time.perf_counter()
    print(f"eager Linear(64) fwd {((t1-t0)/10000)*1e6:.2f} us/call")
