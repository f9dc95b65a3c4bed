// libFuzzer target: a hypothesis file's text through the hypothesis loader, with `base:`
// resolved from scenarios/hypotheses/ as for the files there.
#include "tests/fuzz/fuzz_support.h"
#include "tools/check/hypothesis.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    latsim::check::load_hypothesis_text(latsim::fuzz::as_text(data, size), "fuzz.yaml",
                                        LATSIM_SOURCE_DIR "/scenarios/hypotheses");
  } catch (const latsim::check::HypothesisError&) {
  }
  return 0;
}
