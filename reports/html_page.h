// The pieces every HTML report page is built from (reports/html_report.cc, suite_html.cc).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace shardsim::html {

// A self-contained page: title, inline style, `body`.
[[nodiscard]] std::string page(const std::string& title, const std::string& body);
// The opening tag of a w x h SVG with an accessible label.
[[nodiscard]] std::string svg_open(double w, double h, const std::string& label);
// Colour swatches with their names ((name, colour) pairs), `per_row` per row from (x, y).
[[nodiscard]] std::string legend(double x, double y,
                                 const std::vector<std::pair<std::string, std::string>>& items,
                                 std::size_t per_row = 4);

}  // namespace shardsim::html
