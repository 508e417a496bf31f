// The compute and host inputs of `shardsim fit` (GEMM shape tables, best-shape tables, dtype
// aliases, bandwidth tables), each applied to the profile being fitted with its provenance and a
// line of the fit report. The fits themselves are calibrate/compute_fit.h and
// calibrate/bandwidth_fit.h; bad input throws InputError naming the flag and "FILE:LINE".
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "simulator/hardware/hardware.h"

namespace shardsim::cli {

// What the fit report says about the non-collective inputs: one JSON item and one text line each.
struct FitNotes {
  nlohmann::json items = nlohmann::json::array();
  std::string text;
  std::vector<std::string> warnings;  // "FILE: ..." lines fit prints on stderr
  void add(nlohmann::json item, const std::string& line);
  // Adds `found` (calibrate::implausible_*) to `item["warnings"]` and to `warnings`, each
  // prefixed with `file`.
  void warn(nlohmann::json& item, const std::string& file, const std::vector<std::string>& found);
};

// Where the tables were measured: efficiencies are taken against this device's peaks and HBM
// bandwidth (the base profile, or --measured-on for a sibling part), rows filtered by `device`.
struct MeasuredDevice {
  const GpuProfile& profile;
  std::string device;  // --device: '|'-separated parts of the table's device name ("" = all)
  // What --samples measured of the device being fitted (SamplesProfile::device_parts): a table
  // may not set a value these already set.
  std::set<std::string> by_samples = {};
};

// The file's text; InputError naming `flag` when it cannot be read.
[[nodiscard]] std::string read_input(const std::string& path, const std::string& flag);

// --samples: the profile the calibration samples documents describe, from `g` as the base when
// `has_base` (--base was given; calibrate/profile_fit.h: checked, the device parts from the last
// document that measured each, every document's collectives); one report line per document saying
// what it gave.
// The collectives' network starts from `network_base` (--network-base: a cluster preset or file;
// "": the base's) and is named `network_name` (--network-name; "": "calibrated").
// Returns the device parts the documents measured (SamplesProfile::device_parts).
// Without a base, every value a profile needs must come from the documents (exit 2 naming what
// they lack), the host link from an --hbm table's host copy instead when `host_link_from_tables`.
std::set<std::string> fit_samples(const std::vector<std::string>& files, bool has_base,
                                  bool host_link_from_tables, const std::string& network_base,
                                  const std::string& network_name, GpuProfile& g, FitNotes& notes);

// --gemm: compute.kind "measured", one point per row (efficiency = FLOP/s / the measured
// device's dtype peak).
void fit_gemm_tables(const std::vector<std::string>& files, const MeasuredDevice& on, GpuProfile& g,
                     FitNotes& notes);

// --gemm-best: a best-shape table (mamf-finder: the best FLOP/s over a shape search) sets
// compute.gemm_peak_efficiency, the roofline's large-GEMM efficiency used for dtypes without
// measured points, from its bf16 row (else fp16); its rows are not added as points (one best
// shape per dtype gives no shape dependence, and a search maximum sits above the shape tables'
// fixed shapes).
void fit_gemm_best(const std::vector<std::string>& files, const MeasuredDevice& on, GpuProfile& g,
                   FitNotes& notes);

// --gemm-alias DST=SRC: a dtype with no points of its own takes SRC's points (the same tensor
// cores at the same peak, e.g. A100 bf16 = fp16). SRC must have points, DST none. REQUIRES:
// check_gemm_aliases(aliases) passed.
void apply_gemm_aliases(const std::vector<std::string>& aliases, GpuProfile& g, FitNotes& notes);
// Their syntax alone (two different known dtypes, each DST once), InputError otherwise: checked
// with the other arguments, before "nothing to fit".
void check_gemm_aliases(const std::vector<std::string>& aliases);

// --hbm: compute.memory_bound_efficiency from BabelStream triad / the measured device's HBM
// bandwidth, host.pcie_bytes_per_second from the best nvbandwidth host copy.
void fit_bandwidth_tables(const std::vector<std::string>& files, const MeasuredDevice& on,
                          GpuProfile& g, FitNotes& notes);

// --attention: compute.attention_points from a FlashAttention benchmark table (efficiency =
// forward + backward FLOP/s / the measured device's fp16 or bf16 peak); a leave-one-out check of
// the lookup goes into the report and the provenance residuals.
// --attention-relative KERNEL/REFERENCE@DEVICE (`relative`; the caller checks that exactly one
// --attention table is given, fit_args.cc check_fit_args): a kernel that the
// table (or `relative_table`, --attention-relative-table, when not empty: a table of published
// rates for DEVICE beside this device's own measurements)
// measured on DEVICE (its '|'-separated parts, as --device) but not on this one gets this
// device's REFERENCE efficiency times the FLOP/s ratio KERNEL / REFERENCE measured on DEVICE, per
// mask, head dimension and sequence length (calibrate/attention_fit.h), with that assumption in
// the provenance.
// --attention-device PARTS (`sibling`, "" = none): the rows of a sibling part with the same
// tensor cores, SM count and clocks (H100 SXM for H200), read from each table that has no row of
// on.device (from every table when on.device is empty, i.e. without --device); efficiencies are
// still against on.profile's peak, and the provenance names the part. Exit 2 when no table
// needed it.
// Returns the kernels whose points it wrote (measured or carried over); the base's points of
// every other kernel stay.
std::vector<std::string> fit_attention_tables(const std::vector<std::string>& files,
                                              const std::vector<std::string>& relative,
                                              const std::string& relative_table,
                                              const std::string& sibling, const MeasuredDevice& on,
                                              GpuProfile& g, FitNotes& notes);

}  // namespace shardsim::cli
