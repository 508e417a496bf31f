#include "simulator/evaluate/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "simulator/core/diagnostics.h"
#include "simulator/core/parallel.h"
#include "simulator/evaluate/evaluate.h"

namespace shardsim {
namespace {

bool pinned(const std::vector<std::string>& keys, const char* key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::vector<int> powers_of_two_to(int limit) {
  std::vector<int> v;
  for (int x = 1; x <= limit; x *= 2) v.push_back(x);
  return v;
}

// The values one dimension takes: the pinned value, else the search section's list (each value
// once, in its order), else `dflt`. A pinned value outside the section's list is InputError: the
// two say different things (found by review, 2026-11-27: the pin won silently; duplicates in
// the list gave duplicate plans).
template <class T>
std::vector<T> values(const std::vector<std::string>& keys, const char* key, T current,
                      const std::vector<T>& section, std::vector<T> dflt) {
  if (pinned(keys, key)) {
    if (!section.empty() && std::find(section.begin(), section.end(), current) == section.end())
      throw InputError(std::string("--set ") + key,
                       "the pinned value is not among the scenario's search values for it; "
                       "drop the pin or the search key");
    return {current};
  }
  if (section.empty()) return dflt;
  std::vector<T> once;
  for (const T& v : section)
    if (std::find(once.begin(), once.end(), v) == once.end()) once.push_back(v);
  return once;
}

}  // namespace

std::string describe(const Candidate& c) {
  std::string out = fmt::format("tp {} pp {}", c.tp, c.pp);
  if (c.vpp > 1) out += fmt::format(" vpp {}", c.vpp);
  if (c.cp > 1) out += fmt::format(" cp {}", c.cp);
  if (c.cp > 1 && c.cp_comm != CpComm::kP2p) {
    // Two appends, not " " + name: GCC 12's -Wrestrict misreads the inlined insert of the latter.
    out += ' ';
    out += cp_comm_name(c.cp_comm);
  }
  if (c.ep > 1) out += fmt::format(" ep {}", c.ep);
  out += fmt::format(" dp {} mb {} zero {}", c.dp, c.micro_batch, c.zero);
  if (c.sp) out += " sp";
  if (c.offload_optimizer) out += " offload";
  out += " rc-";
  out += recompute_name(c.recompute);
  if (c.pp > 1) {
    out += ' ';
    out += schedule_name(c.schedule);
  }
  return out;
}

Candidate candidate_of(const Scenario& s) {
  Candidate c;
  const Strategy& p = s.strategy;
  c.tp = p.tp;
  c.pp = p.pp;
  c.vpp = p.vpp;
  c.cp = p.cp;
  c.ep = p.ep;
  c.dp = p.dp;
  c.zero = p.zero;
  c.sp = p.sp;
  c.offload_optimizer = p.offload_optimizer;
  c.recompute = p.recompute;
  c.schedule = p.schedule;
  c.cp_comm = p.cp_comm;
  c.micro_batch = s.training.micro_batch;
  return c;
}

void apply(const Candidate& c, Scenario& s) {
  Strategy& p = s.strategy;
  p.tp = c.tp;
  p.pp = c.pp;
  p.vpp = c.vpp;
  p.cp = c.cp;
  p.ep = c.ep;
  p.dp = c.dp;
  p.zero = c.zero;
  p.sp = c.sp;
  p.offload_optimizer = c.offload_optimizer;
  p.recompute = c.recompute;
  p.schedule = c.schedule;
  p.cp_comm = c.cp_comm;
  s.training.micro_batch = c.micro_batch;
}

std::vector<Candidate> enumerate_candidates(const Scenario& s,
                                            const std::vector<std::string>& keys) {
  const SearchSpace& sp = s.search;
  const Strategy& base = s.strategy;
  const std::int64_t gpus = s.cluster.gpus();
  const int per_node = std::max(1, s.cluster.gpus_per_node);
  const int layers = s.model.layers;
  const std::int64_t batch = s.training.global_batch;
  const bool moe = s.model.moe.enabled();
  std::vector<Candidate> out;
  for (int tp : values(keys, "parallel.tp", base.tp, sp.tp, powers_of_two_to(per_node))) {
    if (gpus % tp) continue;
    for (int cp : values(keys, "parallel.cp", base.cp, sp.cp, powers_of_two_to(16))) {
      if (gpus % (std::int64_t(tp) * cp)) continue;
      std::vector<int> pp_default;
      for (int pp = 1; pp <= std::min(layers, 64); ++pp)
        if (gpus % (std::int64_t(tp) * cp * pp) == 0) pp_default.push_back(pp);
      for (int pp : values(keys, "parallel.pp", base.pp, sp.pp, pp_default)) {
        if (gpus % (std::int64_t(tp) * cp * pp)) continue;
        const int dp = int(gpus / (std::int64_t(tp) * cp * pp));
        if (pinned(keys, "parallel.dp") && dp != base.dp) continue;
        std::vector<int> ep_default{1};
        if (moe) {
          ep_default.clear();
          for (int ep = 1; ep <= dp * cp; ++ep)
            if ((dp * cp) % ep == 0 && s.model.moe.experts % ep == 0) ep_default.push_back(ep);
        }
        for (int ep : values(keys, "parallel.ep", base.ep, sp.ep, ep_default)) {
          std::vector<int> vpp_default{1};
          if (pp > 1)
            for (int v = 2; v <= 8; ++v)
              if (layers >= pp * v) vpp_default.push_back(v);
          for (int vpp : values(keys, "parallel.vpp", base.vpp, sp.vpp, vpp_default)) {
            std::vector<Schedule> sched_default;
            if (vpp > 1)
              sched_default = {Schedule::kInterleaved};
            else if (pp > 1)
              sched_default = {Schedule::kGpipe, Schedule::k1F1B, Schedule::kZbH1, Schedule::kZbH2};
            else
              sched_default = {Schedule::k1F1B};
            for (Schedule sched :
                 values(keys, "parallel.schedule", base.schedule, sp.schedule, sched_default)) {
              std::vector<std::int64_t> mb_default;
              for (std::int64_t mb = 1; mb <= 32; mb *= 2)
                if (batch % (std::int64_t(dp) * mb) == 0) mb_default.push_back(mb);
              for (std::int64_t mb : values(keys, "training.micro_batch", s.training.micro_batch,
                                            sp.micro_batch, mb_default)) {
                // With one data-parallel rank ZeRO shards nothing, but ZeRO-1 with optimizer
                // offload is DeepSpeed's ZeRO-Offload, the way a model too big for one GPU
                // trains there (found by review, 2026-11-27: no 1-GPU plan offloaded).
                std::vector<int> zero_default{0, 1};
                if (dp * cp > 1) zero_default = {0, 1, 2, 3};
                for (int zero : values(keys, "parallel.zero", base.zero, sp.zero, zero_default)) {
                  std::vector<int> off_default{0};
                  if (zero >= 1)
                    off_default = dp * cp > 1 ? std::vector<int>{0, 1} : std::vector<int>{1};
                  for (int off :
                       values(keys, "parallel.offload_optimizer", int(base.offload_optimizer),
                              sp.offload_optimizer, off_default)) {
                    // One data-parallel rank: ZeRO without offload is ZeRO 0 again, unless the
                    // user asked for that stage.
                    if (dp * cp == 1 && zero >= 1 && off == 0 && sp.zero.empty() &&
                        !pinned(keys, "parallel.zero"))
                      continue;
                    std::vector<Recompute> rc_default{Recompute::kNone, Recompute::kFull};
                    if (!s.training.flash_attention)
                      rc_default.insert(rc_default.begin() + 1, Recompute::kSelective);
                    for (Recompute rc : values(keys, "training.recompute", base.recompute,
                                               sp.recompute, rc_default)) {
                      std::vector<int> sp_default{0};
                      if (tp > 1) sp_default = {1, 0};
                      for (int seq : values(keys, "parallel.sp", int(base.sp), sp.sp, sp_default))
                        // The exchange matters only with context parallelism: other plans take
                        // the scenario's, once (default: the scenario's at every cp).
                        for (CpComm comm : cp > 1 ? values(keys, "parallel.cp_comm_type",
                                                           base.cp_comm, sp.cp_comm, {base.cp_comm})
                                                  : std::vector<CpComm>{base.cp_comm}) {
                          Candidate c;
                          c.tp = tp;
                          c.pp = pp;
                          c.vpp = vpp;
                          c.cp = cp;
                          c.ep = ep;
                          c.dp = dp;
                          c.zero = zero;
                          c.micro_batch = mb;
                          c.sp = seq != 0;
                          c.offload_optimizer = off != 0;
                          c.recompute = rc;
                          c.schedule = sched;
                          c.cp_comm = comm;
                          out.push_back(c);
                        }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

SearchResult search_plans(const Scenario& s, const SearchOptions& o) {
  SearchResult r;
  r.top_k = o.top_k > 0 ? o.top_k : s.search.top_k;
  const std::vector<Candidate> space = enumerate_candidates(s, o.pinned);
  r.space = r.considered = space.size();
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards)
    throw std::invalid_argument(fmt::format("search: shard {} of {}", o.shard, o.shards));
  // Per plan: its analytic tokens/s, or why it was dropped. This process's plans, in order.
  std::vector<PlanOutcome> outcomes(space.size());
  std::vector<std::size_t> mine;
  for (std::size_t i = std::size_t(o.shard); i < space.size(); i += std::size_t(o.shards))
    mine.push_back(i);
  // Per worker: a scenario to vary in place and an evaluate cache.
  const int workers = worker_count(mine.size(), o.threads);
  std::vector<Scenario> locals(std::size_t(workers), s);
  std::vector<EvaluateCache> caches(static_cast<std::size_t>(workers));
  std::atomic<std::size_t> done{0};
  auto last = std::chrono::steady_clock::now();  // worker 0's last progress call
  parallel_for(mine.size(), o.threads, [&](std::size_t k, int worker) {
    const std::size_t i = mine[k];
    Scenario& local = locals[std::size_t(worker)];
    EvaluateOptions eo;
    eo.mode = Mode::kAnalytic;
    eo.memory_detail = MemoryDetail::kNumbers;
    eo.cache = &caches[std::size_t(worker)];
    apply(space[i], local);
    Expected<Estimate> e = evaluate(local, eo);
    PlanOutcome& out = outcomes[i];
    if (!e.ok())
      out.reason = "invalid " + e.errors().items().front().path;
    else if (!e->feasible())
      out.reason = e->infeasible.front().code;
    else {
      out.tokens_per_second = e->time->throughput.tokens_per_second;
      out.step_seconds = e->time->step_seconds;
      out.peak_bytes = e->memory->peak_bytes;
    }
    done.fetch_add(1);
    if (worker == 0 && o.progress) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::milliseconds(200)) {
        o.progress(done.load(), mine.size());
        last = now;
      }
    }
  });
  if (o.progress) o.progress(mine.size(), mine.size());
  if (o.shards > 1) {
    if (!o.gather) throw std::invalid_argument("search: shards > 1 without a gather");
    o.gather(outcomes);
  }
  if (!o.finish) return r;

  std::vector<std::size_t> feasible;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (outcomes[i].reason.empty())
      feasible.push_back(i);
    else
      ++r.infeasible[outcomes[i].reason];
  }
  r.feasible = feasible.size();
  if (o.points)
    for (std::size_t i : feasible)
      r.points.push_back(
          {outcomes[i].peak_bytes, outcomes[i].tokens_per_second, describe(space[i])});
  // Best analytic throughput first; equal throughput keeps enumeration order (deterministic).
  std::stable_sort(feasible.begin(), feasible.end(), [&](std::size_t a, std::size_t b) {
    return outcomes[a].tokens_per_second > outcomes[b].tokens_per_second;
  });
  const Candidate base = candidate_of(s);
  r.baseline = base;
  for (std::size_t k = 0; k < feasible.size(); ++k) {
    if (space[feasible[k]] == base) {  // its best rank, should the space hold it twice
      r.baseline_rank = k + 1;
      break;
    }
  }

  // The top K again with the discrete-event simulation and every memory term.
  // One scenario varied in place: an estimate keeps what it evaluated (strategy, micro-batch) by
  // value and is pointed at `s` afterwards, so a result costs no scenario copy (a copy per result
  // held about 0.8 MB each: `--top 1000` on mcore-177b peaked near 1 GB).
  const std::size_t k = std::min<std::size_t>(std::size_t(r.top_k), feasible.size());
  Scenario& local = locals.front();
  for (std::size_t rank = 0; rank < k; ++rank) {
    const std::size_t i = feasible[rank];
    RankedPlan p;
    p.plan = space[i];
    apply(p.plan, local);
    p.analytic_step_seconds = outcomes[i].step_seconds;
    p.analytic_tokens_per_second = outcomes[i].tokens_per_second;
    p.analytic_rank = rank + 1;
    Expected<Estimate> e = evaluate(local, {Mode::kDes});
    std::string not_simulated;
    if (!e.ok()) {  // too large to simulate: the analytic figures, and the report says so
      // The DES's reason up to its advice, which names simulate's options, not search's.
      not_simulated = e.errors().items().front().message;
      not_simulated = not_simulated.substr(0, not_simulated.find(';'));
      e = evaluate(local, {Mode::kAnalytic});
    }
    if (!e.ok()) e.errors().throw_if_any();
    p.estimate = std::move(e).value();
    p.estimate.scenario = &s;
    // Found by review, 2026-11-28: such a plan was listed as re-ranked by the DES, silently.
    if (!not_simulated.empty())
      p.estimate.warnings.push_back("not re-ranked by the discrete-event simulation (" +
                                    not_simulated + "): its figures are the analytic model's");
    r.results.push_back(std::move(p));
  }
  std::stable_sort(r.results.begin(), r.results.end(),
                   [](const RankedPlan& a, const RankedPlan& b) {
                     return a.estimate.time->throughput.tokens_per_second >
                            b.estimate.time->throughput.tokens_per_second;
                   });
  return r;
}

}  // namespace shardsim
