#include "kernels/common/timing_loop.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardsim::kernels {

int runs_per_sample(double one_run_s, const LoopConfig& config) {
  if (!(one_run_s > 0)) return config.max_runs_per_sample;
  const double runs = std::ceil(config.min_sample_s / one_run_s);
  return static_cast<int>(std::clamp(runs, 1.0, static_cast<double>(config.max_runs_per_sample)));
}

Measurement measure(const Descriptor& descriptor, Timer& timer, const Comm& comm,
                    const LoopConfig& config, const std::function<void()>& started) {
  Measurement m;
  const std::unique_ptr<Instance> instance = descriptor.setup();
  comm.barrier();
  if (started) started();
  instance->run(1);
  m.verification = instance->verify();
  m.verification.ok = comm.all(m.verification.ok);
  if (config.warmup_runs > 0) instance->run(config.warmup_runs);
  comm.barrier();
  m.runs_per_sample = runs_per_sample(comm.max(timer.time(*instance, 1)), config);

  double total = 0;
  while (static_cast<int>(m.samples_s.size()) < config.max_repetitions) {
    comm.barrier();
    const double local = timer.time(*instance, m.runs_per_sample) / m.runs_per_sample;
    const double sample = comm.max(local);
    m.samples_s.push_back(sample);
    total += sample * m.runs_per_sample;
    if (static_cast<int>(m.samples_s.size()) >= config.min_repetitions &&
        total >= config.min_total_s) {
      break;
    }
  }
  m.summary = summarize(m.samples_s);
  return m;
}

}  // namespace shardsim::kernels
