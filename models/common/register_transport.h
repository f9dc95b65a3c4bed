#pragma once
// The b_transport of a device with byte/word/dword registers: unpack the TLM
// payload (little-endian, at most 4 bytes) into read(offset, len) / write(offset,
// len, value) calls on the device, as an x86 IN/OUT or MOV of that size would.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tlm>

namespace latsim {

template <class Device>
void register_transport(Device& dev, tlm::tlm_generic_payload& p) {
  const unsigned len = std::min(4u, p.get_data_length());
  uint32_t v = 0;
  if (p.is_write()) {
    std::memcpy(&v, p.get_data_ptr(), len);
    dev.write(p.get_address(), len, v);
  } else {
    v = dev.read(p.get_address(), len);
    std::memcpy(p.get_data_ptr(), &v, len);
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace latsim
