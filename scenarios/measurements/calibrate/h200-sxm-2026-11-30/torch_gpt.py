# A Megatron-style GPT training step in PyTorch eager on one GPU, timed, for checking shardsim's
# step-time and memory predictions against a measured step. Megatron's bf16 scheme: bf16
# parameters, fp32 gradient buffers filled by a post-accumulate hook (Megatron's main_grad), fp32
# master weights, fused AdamW, gradient clipping; LayerNorm, learned positions, biases, GELU,
# dropout 0.1, flash attention (SDPA), tied embeddings, fp32 cross-entropy. The H100 run's script
# (2026-11-28) with a recompute option and three more configurations (H200 run, 2026-11-30).
import gc, json, os, statistics, sys, time, traceback
import torch
import torch.utils.checkpoint
import torch.nn as nn
import torch.nn.functional as F

P = 0.1


class Block(nn.Module):
    def __init__(self, h, a):
        super().__init__()
        self.a = a
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv, self.proj = nn.Linear(h, 3 * h), nn.Linear(h, h)
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.a, h // self.a).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                           dropout_p=P, is_causal=True)
        x = x + F.dropout(self.proj(y.transpose(1, 2).reshape(b, t, h)), P)
        return x + F.dropout(self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh")), P)


class GPT(nn.Module):
    def __init__(self, layers, h, a, vocab, seq, recompute=False):
        super().__init__()
        self.recompute = recompute
        self.wte, self.wpe = nn.Embedding(vocab, h), nn.Embedding(seq, h)
        self.blocks = nn.ModuleList(Block(h, a) for _ in range(layers))
        self.lnf = nn.LayerNorm(h)
        for n, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, idx, tgt):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = F.dropout(self.wte(idx) + self.wpe(pos), P)
        for blk in self.blocks:
            # recompute: Megatron's full uniform recomputation of every layer (each block's
            # input kept, the block run again in the backward)
            x = (torch.utils.checkpoint.checkpoint(blk, x, use_reentrant=False)
                 if self.recompute else blk(x))
        logits = F.linear(self.lnf(x), self.wte.weight)
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), tgt.view(-1))


def run(cfg, warmup=3, steps=10):
    name, layers, h, a, seq, mb = cfg[:6]
    recompute = len(cfg) > 6 and cfg[6]
    vocab = 51200
    torch.manual_seed(0)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    with torch.device("cuda"):
        model = GPT(layers, h, a, vocab, seq, recompute).to(torch.bfloat16)
    params = [p for p in model.parameters()]
    master = [p.detach().float().clone() for p in params]
    for m in master:
        m.grad = torch.zeros_like(m)
    by_param = {id(p): m for p, m in zip(params, master)}

    def hook(p):  # Megatron's main_grad: accumulate into the fp32 buffer, drop the bf16 grad
        by_param[id(p)].grad.add_(p.grad)
        p.grad = None

    for p in params:
        p.register_post_accumulate_grad_hook(hook)
    opt = torch.optim.AdamW(master, lr=1e-4, weight_decay=0.01, fused=True)
    n_params = sum(p.numel() for p in params)
    idx = torch.randint(0, vocab, (mb, seq), device="cuda")
    tgt = torch.randint(0, vocab, (mb, seq), device="cuda")
    fb, op, tot, losses = [], [], [], []
    for i in range(warmup + steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = model(idx, tgt)
        loss.backward()
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(master, 1.0, foreach=True)
        opt.step()
        with torch.no_grad():
            try:
                torch._foreach_copy_([p.data for p in params], master)
            except Exception:  # noqa: BLE001
                for p, m in zip(params, master):
                    p.data.copy_(m)
            torch._foreach_zero_([m.grad for m in master])
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        losses.append(loss.item())
        if i >= warmup:
            fb.append(t1 - t0); op.append(t2 - t1); tot.append(t2 - t0)
    r = dict(name=name, layers=layers, hidden=h, heads=a, seq=seq, micro_batch=mb, vocab=vocab,
             recompute="full" if recompute else "none",
             parameters=n_params, step_s_median=statistics.median(tot), step_s_all=tot,
             fwd_bwd_s_median=statistics.median(fb), optimizer_s_median=statistics.median(op),
             max_memory_allocated_bytes=torch.cuda.max_memory_allocated(),
             max_memory_reserved_bytes=torch.cuda.max_memory_reserved(),
             loss_first=losses[0], loss_last=losses[-1])
    del model, opt, master, params, by_param
    gc.collect()
    torch.cuda.empty_cache()
    return r


def main():
    out = sys.argv[1]
    cfgs = [("gpt-h2048-l8-s2048-b4", 8, 2048, 16, 2048, 4),
            ("gpt-h4096-l4-s2048-b2", 4, 4096, 32, 2048, 2),
            ("gpt-h1024-l24-s1024-b8", 24, 1024, 16, 1024, 8),
            ("gpt-h2048-l8-s2048-b1", 8, 2048, 16, 2048, 1),
            ("gpt-h512-l4-s512-b1", 4, 512, 8, 512, 1),
            # added for the H200 run (2026-11-30), chosen before it: full recomputation, large
            # GEMMs, a long sequence
            ("gpt-h2048-l8-s2048-b4-recompute", 8, 2048, 16, 2048, 4, True),
            ("gpt-h8192-l2-s2048-b2", 2, 8192, 64, 2048, 2),
            ("gpt-h4096-l4-s8192-b1", 4, 4096, 32, 8192, 1)]
    env = dict(torch=torch.__version__, cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
               device=torch.cuda.get_device_name(0), capability=list(torch.cuda.get_device_capability(0)),
               total_memory_bytes=torch.cuda.get_device_properties(0).total_memory,
               python=sys.version.split()[0], date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    res = dict(environment=env, runs=[])
    print(json.dumps(env), flush=True)
    for c in cfgs:
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                r = dict(run(c), sdpa="flash (forced)")
        except Exception:  # noqa: BLE001
            err = traceback.format_exc()
            try:
                r = dict(run(c), sdpa="default", flash_error=err[-600:])
            except Exception:  # noqa: BLE001
                r = dict(name=c[0], error=err[-600:] + traceback.format_exc()[-1200:])
        res["runs"].append(r)
        print(json.dumps({k: v for k, v in r.items() if k != "step_s_all"}), flush=True)
        with open(out, "w") as f:
            json.dump(res, f, indent=1)


main()
