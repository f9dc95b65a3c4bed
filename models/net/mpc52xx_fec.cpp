#include "models/net/mpc52xx_fec.h"
#include <algorithm>
#include "common/log.h"
#include "models/common/knobs.h"
#include "models/common/register_transport.h"
#include "models/net/ethernet.h"

namespace latsim::net {

params::Table<Mpc52xxFecParams> mpc52xx_fec_keys() {
  using namespace params;
  using P = Mpc52xxFecParams;
  return {
      bind(knobs::fitted("fitted",
                         "eth0 is the MPC5200's FEC fed by BestComm (fec_mpc52xx); false: "
                         "the RTL8139 on PCI (8139too)",
                         "MPC5200BUM: the on-chip FEC; the PC boards have none"),
           &P::fitted),
      bind(with_source(number("wire_mbit_s", 1, 100, "Mbit/s", "line rate of the FEC's cable"),
                       "MPC5200BUM: 10/100 Mbit/s Ethernet MAC"),
           &P::wire_mbit_s),
  };
}

Mpc52xxFec::Mpc52xxFec(sc_core::sc_module_name name, const Mpc52xxFecParams& p,
                       dma::Bestcomm& bestcomm)
    : sc_module(name),
      socket("socket"),
      p_(p),
      bestcomm_(bestcomm),
      source_(p.rx, p.wire_mbit_s, std::string(this->name()) + ".rx") {
  socket.register_b_transport(this, &Mpc52xxFec::b_transport);
  bestcomm_.set_tx_wire(p_.wire_mbit_s);
  SC_HAS_PROCESS(Mpc52xxFec);
  SC_METHOD(rx_step);  // runs once at start to fetch the first arrival
  sensitive << rx_ev_;
}

void Mpc52xxFec::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

uint32_t Mpc52xxFec::read(uint64_t offset, unsigned) {
  switch (offset) {
    case FEC_ID:
      return 0;
    case IEVENT:
      return ievent_;
    case IMASK:
      return imask_;
    case ECNTRL:
      return ecntrl_;
    case R_CNTRL:
      return r_cntrl_;
    case X_CNTRL:
      return x_cntrl_;
    case PADDR1:
      return paddr1_;
    case PADDR2:
      return paddr2_;
    default:
      return 0;
  }
}

void Mpc52xxFec::write(uint64_t offset, unsigned, uint32_t v) {
  switch (offset) {
    case IEVENT:
      ievent_ &= ~v;
      break;
    case IMASK:
      imask_ = v;
      break;
    case ECNTRL:
      ecntrl_ = v & ECNTRL_RESET ? 0 : v;
      break;  // RESET clears and self-clears
    case R_CNTRL:
      r_cntrl_ = v;
      break;
    case X_CNTRL:
      x_cntrl_ = v;
      break;
    case PADDR1:
      paddr1_ = v;
      break;
    case PADDR2:
      paddr2_ = v;
      break;
    default:
      break;  // R/X_DES_ACTIVE: the FIFOs' requests to BestComm, nothing to store
  }
  update_irq();
}

// One event per frame: when its first XLB burst's bytes are in the Rx FIFO, BestComm's
// receive task takes it (or the FIFO overruns: no ready descriptor).
void Mpc52xxFec::rx_step() {
  const sc_time now = sc_core::sc_time_stamp();
  if (next_) {
    const Arrival a = *next_;
    next_.reset();
    stats_.frames_arrived++;
    if (!(ecntrl_ & ECNTRL_ETHER_EN)) {
      stats_.frames_dropped_disabled++;
    } else if (!bestcomm_.rx_frame({a.first_bit, a.frame_bytes, p_.wire_mbit_s})) {
      stats_.frames_dropped_fifo++;
      ievent_ |= IEVENT_RFIFO_ERROR;
      LATSIM_DEBUG(nic, name(), "Rx FIFO overrun: {}-byte frame lost", a.frame_bytes);
      update_irq();
    }
  }
  if (!source_.has_next()) return;
  next_ = source_.next();
  const uint32_t first = std::min(next_->frame_bytes, bestcomm_.burst_bytes());
  const sc_time ready = next_->first_bit + wire_time(kPreambleBytes + first, p_.wire_mbit_s);
  rx_ev_.notify(std::max(SC_ZERO_TIME, ready - now));
}

void Mpc52xxFec::update_irq() { irq.set((ievent_ & imask_) != 0); }

}  // namespace latsim::net
