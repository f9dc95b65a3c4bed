#include "platform/timeline/trace_dat_writer.h"
#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace latsim::platform::timeline {
namespace {

// The ring buffer's event header: type_len (5 bits) and time_delta (27 bits).
constexpr uint32_t kTypeTimeExtend = 30, kMaxSmallLen = 28, kDeltaBits = 27;
constexpr size_t kPageHeader = 16, kPageData = TraceDatWriter::kPageSize - kPageHeader;
// Pending records per CPU before advance() writes those it may.
constexpr size_t kFlushEvery = 4096;

void put_le(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
}

std::string section(std::string_view name, std::string_view text, int size_bytes) {
  std::string s(name);
  s.push_back('\0');
  put_le(s, text.size(), size_bytes);
  s.append(text);
  return s;
}

// tracefs events/header_page and events/header_event of a 64-bit kernel.
constexpr std::string_view kHeaderPage =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
constexpr std::string_view kHeaderEvent =
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n"
    "\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n";
constexpr std::string_view kCommonFields =
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";
constexpr size_t kCommonSize = 8;
// Where the kernel text starts in the kallsyms written (a 64-bit x86 kernel's _stext).
constexpr uint64_t kStext = 0xffffffff81000000ull;
constexpr uint64_t kSymbolSpacing = 0x100;

}  // namespace

TraceRecord& TraceRecord::le(uint64_t v, int bytes) {
  put_le(fixed_, v, bytes);
  return *this;
}

TraceRecord& TraceRecord::chars(std::string_view s, size_t n) {
  const size_t k = std::min(s.size(), n - 1);
  fixed_.append(s.substr(0, k));
  fixed_.append(n - k, '\0');
  return *this;
}

TraceRecord& TraceRecord::str(std::string_view s) {
  locs_.push_back(fixed_.size());
  strings_.emplace_back(s);
  return u32(0);
}

TraceDatWriter::TraceDatWriter(std::string path, int ncpus)
    : path_(std::move(path)), cpus_(size_t(ncpus)) {
  f_ = std::make_unique<StreamFile>(path_);
  for (auto& c : cpus_) {
    c.pages = std::tmpfile();
    if (!c.pages) throw OutputError(path_, std::string("temporary file: ") + std::strerror(errno));
  }
}

TraceDatWriter::~TraceDatWriter() {
  for (auto& c : cpus_)
    if (c.pages) std::fclose(c.pages);
}

int TraceDatWriter::add_event(const std::string& system, const std::string& name,
                              std::vector<TraceField> fields, const std::string& print_fmt) {
  const int id = next_id_++;
  std::string fmt_text = fmt::format("name: {}\nID: {}\nformat:\n{}\n", name, id, kCommonFields);
  size_t offset = kCommonSize;
  for (const auto& f : fields) {
    fmt_text += fmt::format("\tfield:{};\toffset:{};\tsize:{};\tsigned:{};\n", f.decl, offset,
                            f.size, f.is_signed ? 1 : 0);
    offset += size_t(f.size);
  }
  fmt_text += fmt::format("\nprint fmt: {}\n", print_fmt);
  systems_[system].push_back(std::move(fmt_text));
  return id;
}

void TraceDatWriter::set_comm(int pid, std::string_view comm) {
  auto& c = comms_[pid];
  if (c != comm) c.assign(comm);
}

int32_t TraceDatWriter::symbol(std::string_view fn) {
  if (fn.empty()) fn = "unknown";  // a kallsyms line without a name ends the reader's parsing
  auto it = symbols_.find(fn);
  if (it != symbols_.end()) return it->second;
  const auto offs = int32_t(kSymbolSpacing * (symbol_order_.size() + 1));
  symbol_order_.emplace_back(fn);
  symbols_.emplace(std::string(fn), offs);
  return offs;
}

void TraceDatWriter::record(int cpu, uint64_t ns, int type, uint8_t flags, uint8_t preempt, int pid,
                            const TraceRecord& r) {
  std::string b;
  size_t total = kCommonSize + r.fixed_.size();
  for (const auto& s : r.strings_) total += s.size() + 1;
  b.reserve(total);
  put_le(b, uint64_t(type), 2);
  b.push_back(char(flags));
  b.push_back(char(preempt));
  put_le(b, uint32_t(pid), 4);
  b.append(r.fixed_);
  size_t at = b.size();
  for (size_t i = 0; i < r.strings_.size(); ++i) {
    const uint32_t len = uint32_t(r.strings_[i].size() + 1);
    const uint32_t loc = (len << 16) | uint32_t(at);
    std::memcpy(&b[kCommonSize + r.locs_[i]], &loc, 4);  // (x86: little-endian, as the file)
    b.append(r.strings_[i]);
    b.push_back('\0');
    at += len;
  }
  cpus_[size_t(cpu)].pending.push_back({ns, std::move(b)});
}

void TraceDatWriter::advance(int cpu, uint64_t ns) {
  Cpu& c = cpus_[size_t(cpu)];
  if (c.pending.size() >= kFlushEvery) flush(c, ns);
}

void TraceDatWriter::flush(Cpu& c, uint64_t before) {
  std::stable_sort(c.pending.begin(), c.pending.end(),
                   [](const Pending& a, const Pending& b) { return a.ns < b.ns; });
  const auto end = std::find_if(c.pending.begin(), c.pending.end(),
                                [before](const Pending& p) { return p.ns >= before; });
  for (auto it = c.pending.begin(); it != end; ++it) append(c, it->ns, it->bytes);
  c.pending.erase(c.pending.begin(), end);
}

void TraceDatWriter::append(Cpu& c, uint64_t ns, const std::string& rec) {
  if (c.count > 0 && ns < c.last_ts) {
    ++late_;
    ns = c.last_ts;
  }
  const size_t words = (rec.size() + 3) / 4;
  const bool small = words <= kMaxSmallLen;
  const size_t need = 4 + (small ? 0 : 4) + words * 4;
  uint64_t delta = ns - c.last_ts;
  const bool extend = delta >= (uint64_t(1) << kDeltaBits);
  if (c.page.empty() || c.page.size() + need + (extend ? 8 : 0) > kPageData) {
    if (!c.page.empty()) close_page(c);
    c.page_ts = ns;
    delta = 0;
  } else if (extend) {
    put_le(c.page, kTypeTimeExtend | ((delta & ((1u << kDeltaBits) - 1)) << 5), 4);
    put_le(c.page, delta >> kDeltaBits, 4);
    delta = 0;
  }
  std::string body = rec;
  body.resize(words * 4, '\0');
  if (small) {
    put_event(c, uint32_t(words) | uint32_t(delta << 5), body);
  } else {
    put_le(c.page, uint32_t(delta << 5), 4);  // type_len 0: the length is in array[0]
    put_le(c.page, body.size() + 4, 4);
    c.page.append(body);
  }
  c.last_ts = ns;
  ++c.count;
}

void TraceDatWriter::put_event(Cpu& c, uint32_t header, const std::string& body) {
  put_le(c.page, header, 4);
  c.page.append(body);
}

void TraceDatWriter::close_page(Cpu& c) {
  std::string p;
  p.reserve(kPageSize);
  put_le(p, c.page_ts, 8);
  put_le(p, c.page.size(), 8);  // commit: the bytes of events in the page
  p.append(c.page);
  p.resize(kPageSize, '\0');
  if (std::fwrite(p.data(), 1, p.size(), c.pages) != p.size()) io_error_ = true;
  ++c.npages;
  c.page.clear();
}

bool TraceDatWriter::failed() const { return io_error_ || (f_ && f_->failed()); }

std::string TraceDatWriter::headers() const {
  std::string h("\x17\x08\x44tracing6", 11);
  h.push_back('\0');
  h.push_back('\0');     // little-endian
  h.push_back(char(8));  // sizeof(long)
  put_le(h, uint32_t(kPageSize), 4);
  h += section("header_page", kHeaderPage, 8);
  h += section("header_event", kHeaderEvent, 8);
  put_le(h, 0, 4);  // no ftrace (function tracer) formats
  put_le(h, systems_.size(), 4);
  for (const auto& [system, formats] : systems_) {
    h += system;
    h.push_back('\0');
    put_le(h, formats.size(), 4);
    for (const auto& f : formats) {
      put_le(h, f.size(), 8);
      h += f;
    }
  }
  std::vector<std::pair<int32_t, std::string_view>> syms;
  for (const auto& name : symbol_order_) syms.emplace_back(symbols_.find(name)->second, name);
  std::string kallsyms = fmt::format("{:016x} T _stext\n", kStext);
  for (const auto& [offs, name] : syms)
    kallsyms += fmt::format("{:016x} t {}\n", kStext + uint64_t(offs), name);
  put_le(h, kallsyms.size(), 4);
  h += kallsyms;
  put_le(h, 0, 4);  // no trace_printk formats
  std::string cmdlines;
  for (const auto& [pid, comm] : comms_) cmdlines += fmt::format("{} {}\n", pid, comm);
  put_le(h, cmdlines.size(), 8);
  h += cmdlines;
  put_le(h, cpus_.size(), 4);
  h.append("options  \0", 10);
  put_le(h, 0, 2);  // no options
  h.append("flyrecord\0", 10);
  return h;
}

void TraceDatWriter::finish() {
  if (!f_) return;
  for (auto& c : cpus_) {
    flush(c, std::numeric_limits<uint64_t>::max());
    if (!c.page.empty()) close_page(c);
  }
  std::string h = headers();
  // Each CPU's offset and size, then its pages from the next page boundary.
  uint64_t at = (h.size() + 16 * cpus_.size() + kPageSize - 1) / kPageSize * kPageSize;
  for (const auto& c : cpus_) {
    put_le(h, at, 8);
    put_le(h, c.npages * kPageSize, 8);
    at += c.npages * kPageSize;
  }
  h.resize((h.size() + kPageSize - 1) / kPageSize * kPageSize, '\0');
  f_->write(h);
  std::string buf(kPageSize * 64, '\0');
  for (auto& c : cpus_) {
    if (std::fflush(c.pages) != 0 || std::fseek(c.pages, 0, SEEK_SET) != 0) io_error_ = true;
    size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), c.pages)) > 0) f_->write({buf.data(), n});
    if (std::ferror(c.pages)) io_error_ = true;
  }
  const auto f = std::move(f_);
  if (io_error_) throw OutputError(path_, "temporary file of the CPU pages failed");
  f->finish({});
}

}  // namespace latsim::platform::timeline
