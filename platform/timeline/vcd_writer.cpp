#include "platform/timeline/vcd_writer.h"
#include <fmt/format.h>
#include <stdexcept>
#include "platform/timeline/stream_file.h"

namespace latsim::platform::timeline {
namespace {

// Identifier codes: printable ASCII '!'..'~', base 94.
std::string vcd_id(size_t n) {
  std::string s;
  do {
    s += char('!' + n % 94);
    n /= 94;
  } while (n);
  return s;
}

}  // namespace

VcdWriter::VcdWriter(std::string path, TimeWindow window) : path_(std::move(path)), w_(window) {
  f_ = std::make_unique<StreamFile>(path_);
}

VcdWriter::~VcdWriter() = default;

bool VcdWriter::failed() const { return f_ && f_->failed(); }

int VcdWriter::add(const std::string& scope, const std::string& name, int width, uint64_t initial) {
  if (declared_) throw std::logic_error("VCD variable declared after the first change");
  vars_.push_back({scope, name, vcd_id(vars_.size()), width, initial});
  return int(vars_.size()) - 1;
}

void VcdWriter::header() {
  declared_ = true;
  buf_ += "$version latsim $end\n$timescale 1ns $end\n$scope module latsim $end\n";
  std::string scope;
  for (const auto& v : vars_) {
    if (v.scope != scope) {
      if (!scope.empty()) buf_ += "$upscope $end\n";
      scope = v.scope;
      fmt::format_to(std::back_inserter(buf_), "$scope module {} $end\n", scope);
    }
    fmt::format_to(std::back_inserter(buf_), "$var {} {} {} {} $end\n",
                   v.width == 1 ? "wire" : "reg", v.width, v.id, v.name);
  }
  if (!scope.empty()) buf_ += "$upscope $end\n";
  buf_ += "$upscope $end\n$enddefinitions $end\n";
}

void VcdWriter::write_value(const Var& v) {
  if (v.width == 1) {
    buf_ += v.value == kVcdZ ? 'z' : v.value ? '1' : '0';
  } else if (v.value == kVcdZ) {
    buf_ += "bz ";
  } else {
    fmt::format_to(std::back_inserter(buf_), "b{:b} ", v.value);
  }
  buf_ += v.id;
  buf_ += '\n';
}

void VcdWriter::flush_if_full() {
  if (buf_.size() < (1u << 20)) return;
  f_->write(buf_);
  buf_.clear();
}

void VcdWriter::change(int var, uint64_t ps, uint64_t value) {
  if (!declared_) header();
  Var& v = vars_[size_t(var)];
  if (ps > w_.to_ps) return;
  if (ps < w_.from_ps) {
    v.value = value;
    return;
  }
  if (!dumped_) {
    dumped_ = true;
    last_ns_ = w_.from_ps / 1000;
    fmt::format_to(std::back_inserter(buf_), "#{}\n$dumpvars\n", last_ns_);
    for (const auto& x : vars_) write_value(x);
    buf_ += "$end\n";
  }
  if (v.value == value) return;
  v.value = value;
  const uint64_t ns = ps / 1000;
  if (ns != last_ns_) fmt::format_to(std::back_inserter(buf_), "#{}\n", ns), last_ns_ = ns;
  write_value(v);
  flush_if_full();
}

void VcdWriter::finish(uint64_t end_ps) {
  if (!f_) return;
  if (!declared_) header();
  if (!dumped_ && w_.from_ps <= end_ps) {
    dumped_ = true;
    fmt::format_to(std::back_inserter(buf_), "#{}\n$dumpvars\n", w_.from_ps / 1000);
    for (const auto& x : vars_) write_value(x);
    buf_ += "$end\n";
  }
  const uint64_t end_ns = std::min(end_ps, w_.to_ps) / 1000;
  if (dumped_ && end_ns != last_ns_) fmt::format_to(std::back_inserter(buf_), "#{}\n", end_ns);
  const auto f = std::move(f_);
  f->finish(buf_);
  buf_.clear();
}

}  // namespace latsim::platform::timeline
