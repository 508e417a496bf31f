// Writing reports: to stdout, or to a file replaced atomically (never half written).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace shardsim {

// Writes `text` to `path` ("" or "-" = stdout): write_outputs of one output.
// - A regular file (or a new one) is written to a temporary sibling and renamed into place, so a
//   reader never sees it half written and a failure leaves the old file (or none).
// - A symbolic link is followed: its target is replaced, the link stays.
// - Anything else that exists (a FIFO, /dev/null, /dev/stdout, a terminal) is written through,
//   never replaced.
// Throws InputError (exit 2) naming the path when it cannot be a file at all (a directory, a
// missing parent directory), OutputError (exit 3) when writing fails (disk full, permission
// denied, I/O error, a closed stdout), with the system's reason.
void write_output(const std::string& path, const std::string& text);

// Several outputs of one command ((path, text) pairs), all or none: every regular file is first
// written to its temporary sibling, then the written-through outputs (stdout, FIFOs, devices) are
// written in order, and only then are the temporaries renamed into place. A failure before the
// renames leaves every file as it was (found by review, 2026-11-28: `fit -o p.json
// --network-output /dev/full` exited 3 with p.json written). SIGPIPE is ignored meanwhile, so a
// closed stdout pipe is such a failure (exit 3), not a killed process. Not covered: a rename
// failing after others succeeded (rare: the temporaries sit beside their targets) leaves those
// replaced, and a process killed while it writes (SIGINT, SIGKILL) may leave temporaries
// (NAME.tmp.XXXXXX) beside their targets. Throws as write_output does.
void write_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// Before any work: every output a command was given ((flag, path) pairs; "" and "-" skipped)
// must be a path it can write (check_output_path, check_output_creatable) and no two may be the
// same file (after following symbolic links), or the later one would silently replace the
// earlier. InputError (exit 2) naming the flags otherwise.
// `inputs` ((flag, path) pairs of the files the command reads; a path that is no file, such as a
// preset name, is skipped): no output may be one of them, or writing would destroy the input.
// At most one output may go to standard output ("-", or "" for -o, the report's default).
void check_outputs(const std::vector<std::pair<std::string, std::string>>& flag_paths,
                   const std::vector<std::pair<std::string, std::string>>& inputs = {});

// check_outputs' rule on inputs alone, for inputs known only once the command has read its
// first input (the files a scenario names: simulate -o PROFILE would replace the scenario's
// cluster.gpu file; found by review, 2026-11-28). InputError naming the output's flag.
void check_outputs_not_inputs(const std::vector<std::pair<std::string, std::string>>& flag_paths,
                              const std::vector<std::pair<std::string, std::string>>& inputs);

// The folder of the file write_output(path, ...) writes (symbolic links followed, as an absolute
// canonical path), or "" when `path` is stdout ("" or "-").
[[nodiscard]] std::string output_folder(const std::string& path);

// InputError naming `flag` when `path` is a directory or its parent directory does not exist.
void check_output_path(const std::string& flag, const std::string& path);

// InputError naming `flag`, with the system's reason, when write_output could not create `path`
// now: its directory takes no new file (permission denied, a read-only file system, /proc), or
// an existing FIFO or device is not writable. Probes with a temporary file it removes at once, so
// a command refuses such an output before any work, not after it (found by review 2026-11-27:
// `-o` into a read-only directory was exit 3 after --trace and --html had been written).
void check_output_creatable(const std::string& flag, const std::string& path);

}  // namespace shardsim
