#pragma once
// MPC5200B Fast Ethernet Controller (the user's manual's FEC): a 10/100 MAC whose Rx and Tx
// FIFOs are emptied and filled by BestComm tasks, not by a DMA of its own. Modelled: the
// registers Linux's fec_mpc52xx driver programs (ECNTRL, IEVENT/IMASK, R_CNTRL, X_CNTRL,
// PADDR1/2), frames arriving from a PacketSource entering the Rx FIFO and handed to the
// BestComm receive task once its first burst is in, and the wire speed of the Tx side.
#include <tlm_utils/simple_target_socket.h>
#include <optional>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/dma/bestcomm.h"
#include "models/irq/irq_line.h"
#include "models/net/packet_source.h"

namespace latsim::net {

// platform.fec.* (fitted chooses this NIC and fec_mpc52xx for eth0).
struct Mpc52xxFecParams {
  bool fitted = false;         // the board's eth0 is the FEC (the MPC5200's on-chip MAC)
  double wire_mbit_s = 100.0;  // MPC5200BUM: 10/100 Mbit/s MII
  PacketSourceParams rx;       // the traffic arriving on the cable
};
params::Table<Mpc52xxFecParams> mpc52xx_fec_keys();

struct Mpc52xxFecStats {
  uint64_t frames_arrived = 0;
  uint64_t frames_dropped_fifo = 0;      // no receive descriptor ready: Rx FIFO overrun
  uint64_t frames_dropped_disabled = 0;  // ETHER_EN off
};

class Mpc52xxFec : public sc_core::sc_module {
 public:
  // Offsets from MBAR + 0x3000 (Linux fec_mpc52xx.h struct mpc52xx_fec).
  enum Offset : uint32_t {
    FEC_ID = 0x000,
    IEVENT = 0x004,  // write 1 to clear
    IMASK = 0x008,
    R_DES_ACTIVE = 0x010,
    X_DES_ACTIVE = 0x014,
    ECNTRL = 0x024,
    R_CNTRL = 0x084,
    X_CNTRL = 0x0c4,
    PADDR1 = 0x0e4,
    PADDR2 = 0x0e8,
  };
  static constexpr uint32_t kWindow = 0x400;
  enum EcntrlBits : uint32_t { ECNTRL_RESET = 0x1, ECNTRL_ETHER_EN = 0x2 };
  static constexpr uint32_t IEVENT_RFIFO_ERROR = 0x00020000;  // fec_mpc52xx.h

  tlm_utils::simple_target_socket<Mpc52xxFec> socket;
  irq::IrqLine irq;  // the FEC's own (error) interrupt: IEVENT & IMASK

  Mpc52xxFec(sc_core::sc_module_name name, const Mpc52xxFecParams& p, dma::Bestcomm& bestcomm);

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);

  const Mpc52xxFecStats& stats() const { return stats_; }
  const Mpc52xxFecParams& params() const { return p_; }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void rx_step();
  void update_irq();

  Mpc52xxFecParams p_;
  dma::Bestcomm& bestcomm_;
  PacketSource source_;
  std::optional<Arrival> next_;
  sc_core::sc_event rx_ev_;
  uint32_t ievent_ = 0, imask_ = 0, ecntrl_ = 0, r_cntrl_ = 0, x_cntrl_ = 0;
  uint32_t paddr1_ = 0, paddr2_ = 0;
  Mpc52xxFecStats stats_;
};

}  // namespace latsim::net
