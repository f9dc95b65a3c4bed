#include "models/scsi/ddys.h"
#include <algorithm>

namespace latsim::scsi {

TargetPlan Ddys::queue(bool write, uint64_t lba, uint32_t sectors, sc_time at) {
  commands_++;
  // Tagged queueing: the drive decodes a queued command while the last one is still on
  // the media, so its command overhead ends when the mechanics come free.
  const sc_time overhead =
      write ? drive_.params().write_overhead() : drive_.params().command_overhead();
  const sc_time start = std::max(at, mech_free_ > overhead ? mech_free_ - overhead : at);
  const sc_time bs = bus_sector();
  const sc_time all = bs * double(sectors);
  TargetPlan t;
  if (write) {
    const disk::WritePlan w = drive_.write(lba, sectors, start, bs);
    // The target takes the data when its buffer has room for the rest at the bus rate
    // (a full write cache frees room as it flushes); with write cache the status
    // follows the data, without it the media write.
    const sc_time last_in = w.ready(sectors - 1) + bs;
    t.reselect = std::max(w.ready(0), last_in > all ? last_in - all : SC_ZERO_TIME);
    t.data_end = std::max(t.reselect + all, last_in);
    t.status = w.write_back ? t.data_end : std::max(t.data_end, w.media_done);
    t.disconnects = !w.write_back || t.reselect > start + overhead;
    mech_free_ = t.status;
    return t;
  }
  const disk::ReadPlan r = drive_.read(lba, sectors, start);
  // Buffer-full ratio: the target reconnects when the rest of the data can follow at
  // the bus rate without the transfer overtaking the media (SCSI-2 disconnect-reconnect
  // page), so the bus is free while the drive seeks and waits for the sector.
  const sc_time last_in = r.ready(sectors - 1) + bs;
  t.reselect = std::max(r.ready(0), last_in > all ? last_in - all : SC_ZERO_TIME);
  t.data_end = std::max(t.reselect + all, last_in);
  t.status = t.data_end;
  t.disconnects = t.reselect > at;
  mech_free_ = r.ready(sectors - 1);
  return t;
}

}  // namespace latsim::scsi
