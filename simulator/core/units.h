// Unit constants. Values everywhere are SI (bytes, seconds, FLOP, FLOP/s, bytes/s) and carry their
// unit in their name (`_bytes`, `_seconds`, `_bytes_per_second`), as the JSON report keys do;
// conversions to human units (GiB = 2^30 bytes, GB = 10^9 bytes) use these constants only.
#pragma once

namespace shardsim {

inline constexpr double kGiB = 1073741824.0;  // 2^30 bytes
inline constexpr double kMiB = 1048576.0;     // 2^20 bytes
inline constexpr double kGB = 1e9;            // 10^9 bytes (SI)

}  // namespace shardsim
