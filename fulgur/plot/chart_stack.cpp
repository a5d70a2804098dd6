#include "fulgur/plot/chart_stack.h"

#include <fmt/format.h>

#include <algorithm>

#include "fulgur/plot/atomic_file.h"
#include "fulgur/plot/xml_text.h"

namespace fulgur {
namespace {

constexpr int kEmptyWidth = 240, kEmptyHeight = 60;

}  // namespace

ChartStack::ChartStack(ChartStackOptions options) : options_(std::move(options)) {}

void ChartStack::add(LineChart chart) { charts_.push_back(std::move(chart)); }

int ChartStack::title_height() const { return options_.title.empty() ? 0 : 36; }

int ChartStack::width() const {
  int width = kEmptyWidth;
  for (const auto& chart : charts_) width = std::max(width, chart.options().width);
  return width;
}

int ChartStack::height() const {
  int height = title_height();
  for (const auto& chart : charts_) height += chart.options().height;
  return charts_.empty() ? height + kEmptyHeight : height;
}

std::string ChartStack::to_svg() const {
  const int width = this->width(), height = this->height();
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect class=\"background\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
      width, height);
  if (!options_.title.empty()) {
    const std::string title = plot::xml_escape(options_.title);
    svg += "<title>" + title + "</title>\n";
    svg += fmt::format(
        "<text class=\"stack-title\" x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"17\" "
        "font-weight=\"bold\">{}</text>\n",
        width / 2, title);
  }
  int y = title_height();
  for (const auto& chart : charts_) {
    svg += fmt::format("<g class=\"panel\" transform=\"translate(0 {})\">\n", y);
    svg += chart.svg_elements();
    svg += "</g>\n";
    y += chart.options().height;
  }
  if (charts_.empty()) {
    svg += fmt::format(
        "<text class=\"no-data\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\">no "
        "charts</text>\n",
        width / 2, y + kEmptyHeight / 2);
  }
  svg += "</svg>\n";
  return svg;
}

void ChartStack::save(const std::string& path) const {
  plot::write_file_atomically(path, to_svg());
}

}  // namespace fulgur
