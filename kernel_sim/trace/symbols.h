#pragma once
// The kernel's symbol table: each traced function's size and the offsets of the
// points where it disables or re-enables preemption, so that "started at:
// schedule+0x51/0x740" is stable from run to run (System.map + objdump style).
#include <cstdint>
#include <string>
#include <vector>

namespace latsim::kernel {

// A code location: function + named point inside it ("lock", "unlock", "entry").
struct CodeSite {
  const char* fn = "";
  const char* point = "entry";
};

struct Symbol {
  const char* name;
  uint32_t size;
};

// Offset of `point` in `fn`; unknown points resolve to the function entry.
uint32_t symbol_offset(const char* fn, const char* point);
uint32_t symbol_size(const char* fn);
// "schedule+0x51/0x740"
std::string format_site(const CodeSite& s);

// Where a site is in a 2.4.10 build's source and text: the preempt-stats patch
// records the lock macro's __FILE__/__LINE__ and the return address of its call.
struct SourceLine {
  const char* file = nullptr;  // nullptr: not known (latency.c prints "entry.S")
  uint32_t line = 0;
  uint32_t address = 0;
};
SourceLine source_line(const CodeSite& s);
// The files the table places sites in, sorted ("buffer.c", "ide.c", ..., "timer.c").
std::vector<std::string> source_files();

}  // namespace latsim::kernel
