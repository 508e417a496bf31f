// When long commands (search, calibrate) show progress on stderr: only when someone watches.
#pragma once

#include <unistd.h>

#include <cstdio>

namespace shardsim::cli {

// stderr is a terminal. CI logs, pipes and files stay silent. Under mpirun/srun a rank's stderr
// is a pipe to the launcher whatever the user's terminal is (and Open MPI gives the ranks' stdout
// a pseudo-terminal even when mpirun's output is piped), so ranks stay silent there too: the
// commands take --verbose for that case.
inline bool progress_wanted() {
  return isatty(fileno(stderr)) != 0;
}

}  // namespace shardsim::cli
