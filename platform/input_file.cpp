#include "platform/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "common/text.h"

namespace latsim::platform {

std::string Diagnostic::to_string() const {
  if (key.empty()) return text::escaped(fmt::format("{}: error: {}", location, message));
  return text::escaped(fmt::format("{}: error: {}: {}", location, key, message));
}

namespace {

std::string join_lines(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) text += (text.empty() ? "" : "\n") + d.to_string();
  return text;
}

[[noreturn]] void fail(std::string where, std::string key, std::string message) {
  throw InputError({Diagnostic{std::move(where), std::move(key), std::move(message)}});
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

std::string too_large(size_t bytes) {
  return fmt::format("is {} bytes; the limit is {} bytes (1 MiB)", bytes, kMaxInputBytes);
}

// Closes the descriptor on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Walks the parser's events without building a tree, counting what a walk of the built
// tree would visit: yaml-cpp shares an aliased node, so nine aliases of nine aliases of
// ... cost nothing to build and 9^N to walk.
class Budget : public YAML::EventHandler {
 public:
  explicit Budget(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail(location(file_, mark), "",
           "a second YAML document (after `---`); a file holds one document");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    begin(mark, 1, "~");
    if (anchor) anchor_nodes_[anchor] = 1;
    end();
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    begin(mark, 1, value);
    if (anchor) anchor_nodes_[anchor] = 1;
    end();
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto size = anchor_nodes_.find(anchor);
    if (size == anchor_nodes_.end())
      fail(location(file_, mark), "", "an alias inside the node it names (a cycle)");
    begin(mark, size->second, "?");
    end();
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool map = false;
    std::string path;  // dotted, list items by index: workload.0.cat
    size_t items = 0;  // list items, or map keys and values
    std::string key;   // a map's latest key
    YAML::anchor_t anchor = 0;
    size_t nodes_before = 0;  // the count before this node
  };

  // The path of the innermost collection's current child.
  std::string child_path() const {
    const Frame& f = frames_.back();
    const std::string name = f.map ? f.key : std::to_string(f.items);
    return f.path.empty() ? name : f.path + "." + name;
  }

  // A child of `nodes` nodes (an alias: the nodes it stands for) starts at `mark`;
  // `text` is its text should it be a map's key.
  void begin(const YAML::Mark& mark, size_t nodes, const std::string& text) {
    if (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.map && f.items % 2 == 0) f.key = text;
      if (!f.map && f.items >= kMaxYamlListItems)
        fail(location(file_, mark), f.path,
             fmt::format("a list of more than {} items (the limit)", kMaxYamlListItems));
    }
    nodes_ += nodes;
    if (nodes_ > kMaxYamlNodes)
      fail(location(file_, mark), "",
           fmt::format("more than {} YAML nodes, each use of an alias counted in full "
                       "(the limit)",
                       kMaxYamlNodes));
  }
  void end() {
    if (!frames_.empty()) ++frames_.back().items;
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    if (frames_.size() >= kMaxYamlDepth)
      fail(location(file_, mark), "",
           fmt::format("nested deeper than {} levels (the limit)", kMaxYamlDepth));
    Frame f;
    f.map = map;
    f.anchor = anchor;
    f.nodes_before = nodes_;
    begin(mark, 1, "?");
    f.path = frames_.empty() ? "" : child_path();
    frames_.push_back(std::move(f));
  }

  void close() {
    const Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (f.anchor) anchor_nodes_[f.anchor] = nodes_ - f.nodes_before;
    end();
  }

  std::string file_;
  size_t documents_ = 0;
  size_t nodes_ = 0;
  std::vector<Frame> frames_;
  std::map<YAML::anchor_t, size_t> anchor_nodes_;  // finished anchors: their nodes
};

}  // namespace

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::string location(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return fmt::format("{}:{}:{}", file, mark.line + 1, mark.column + 1);
}

std::string read_input_file(const std::string& path, const std::string& what) {
  const std::string cannot = "cannot read " + what + ": ";
  // Look before opening: opening a FIFO would wait for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(path, "", cannot + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "", cannot + file_kind(st.st_mode));
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (in.fd < 0) fail(path, "", cannot + std::strerror(errno));
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode))  // replaced since the stat
    fail(path, "", cannot + file_kind(st.st_mode));
  if (size_t(st.st_size) > kMaxInputBytes) fail(path, "", cannot + too_large(st.st_size));
  // Read to the end, not to st_size: /proc files say 0 and a file may be growing.
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(in.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "", cannot + "read error: " + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, size_t(n));
    if (text.size() > kMaxInputBytes)
      fail(path, "", cannot + fmt::format("more than {} bytes (the limit, 1 MiB)", kMaxInputBytes));
  }
}

YAML::Node parse_yaml_document(const std::string& text, const std::string& file) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    Budget budget(file);
    while (parser.HandleNextDocument(budget)) {
    }
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    fail(location(file, e.mark), "",
         fmt::format("nested deeper than {} levels (the limit)", kMaxYamlDepth));
  } catch (const YAML::Exception& e) {
    fail(location(file, e.mark), "", fmt::format("YAML syntax error: {}", e.msg));
  }
}

}  // namespace latsim::platform
