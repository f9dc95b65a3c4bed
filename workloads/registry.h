#pragma once
// Workload kinds register themselves, each in its own file: a name, a one-line doc, the
// parameter declarations, a factory, checks against the board, the traffic it brings
// from outside the machine, and the files it writes. The platform names no program.
#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/params.h"
#include "workloads/program.h"

namespace latsim::workloads {

// One item of a scenario's workload list: its kind, instance name and the kind's
// params struct (Kind::defaults).
struct Config {
  std::string kind;
  std::string name;
  bool enabled = true;  // false: the item is in the list but does not run
  std::any params;
  template <class P>
  const P& as() const {
    return std::any_cast<const P&>(params);
  }
};

// What a kind may check and use of the board it runs on.
struct Board {
  int ncpus = 1;
  bool has_video = false;
  uint32_t video_mmio_base = 0;  // the graphics card's control BAR, as the X server maps it
};

// A problem with an item: the parameter it names ("" for the item) and the message.
struct Problem {
  std::string param;
  std::string message;
};

// Frames arriving from outside the machine (the far end of the NIC's cable).
struct Arrivals {
  double packets_per_s = 0;
  uint32_t payload_bytes = 0;
  double start_s = 0, stop_s = 0;
};

// The run's end, for a kind's own files.
struct RunEnd {
  Kernel& kernel;
  double now_s = 0;
  std::function<void(const std::string& file, const std::string& text)> write;
};

struct Kind {
  std::string name, doc;
  params::Table<Config> keys;  // bare parameter names; `name` first, then `enabled`
  std::function<std::any()> defaults;
  std::function<std::unique_ptr<Program>(const Config&, const Board&)> make;
  // Optional hooks.
  std::function<std::vector<Problem>(const Config&, const Board&)> check;
  std::function<std::optional<Arrivals>(const Config&, double duration_s)> arrivals;
  // Files of all this kind's programs (called with none too).
  std::function<void(const std::vector<const Program*>&, const RunEnd&)> outputs;
};

// Registers a kind at static initialisation: `const Registration kKind{{...}};`.
struct Registration {
  explicit Registration(Kind k);
};

const std::vector<Kind>& kinds();  // by name
const Kind* find_kind(const std::string& name);
// A fresh item of `kind`: its defaults, named after the kind.
Config make_config(const Kind& kind);

// The instance-name key every kind starts with.
params::Key<Config> name_key();
// A key of the kind's params struct P as a key of the item.
template <class P>
params::Key<Config> param(params::Key<P> k) {
  return params::mount<Config>(k, "", [](Config& c) -> P& { return std::any_cast<P&>(c.params); });
}

// The sound device's buffer as an OSS program sets it (SNDCTL_DSP_SETFRAGMENT): fragments
// and bytes per fragment, for any params struct P with those two members.
template <class P>
params::Key<Config> fragments_key() {
  return param(params::bind(
      params::integer("fragments", 2, 16, "", "fragments in the audio buffer"), &P::fragments));
}
template <class P>
params::Key<Config> fragment_bytes_key() {
  return param(params::bind(
      params::multiple_of(
          params::integer("fragment_bytes", 64, 65536, "bytes", "bytes per fragment"), 4),
      &P::fragment_bytes));
}

// The size of a file a workload streams through the page cache. The block layer keeps
// every page's state from the start, so the size bounds the work before the run: 4096 MB
// is 8x the reference machine's 512 MB, and a larger file streams the same way.
template <class P>
params::Key<Config> file_mb_key(const char* doc) {
  return param(params::bind(params::integer("file_mb", 1, 4096, "MB", doc), &P::file_mb));
}

}  // namespace latsim::workloads
