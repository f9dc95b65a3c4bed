#pragma once
// IBM Ultrastar DDYS class SCSI disk (DDYS-T18350, 18 GB, 10 000 rpm) as a SCSI target:
// its tagged command queue, served in arrival order, and when it reconnects to the
// initiator for each command's data and status. The mechanics (seek, rotation, zoned
// media, read look-ahead, write cache) are the shared disk::DiskDrive's.
#include <cstdint>
#include "models/common/time.h"
#include "models/disk/disk_drive.h"

namespace latsim::scsi {

// What the target tells the initiator of one command, worked out when it is queued.
struct TargetPlan {
  sc_time reselect;          // earliest start of the data phase (reconnect, buffer ready)
  sc_time data_end;          // the data phase cannot end before this (media pace)
  sc_time status;            // the command is done from the drive's side (a write on the media)
  bool disconnects = false;  // the target frees the bus between command and data
};

class Ddys {
 public:
  // `bus_mb_s`: the negotiated synchronous rate of the data phase.
  Ddys(disk::DiskDrive& drive, double bus_mb_s) : drive_(drive), bus_mb_s_(bus_mb_s) {}

  // A READ(10)/WRITE(10) whose CDB arrived at `at`. The drive works its queue in order
  // (assumption: no reordering of tagged commands), so the mechanics start no earlier
  // than the last queued command left them; its command overhead overlaps that one.
  TargetPlan queue(bool write, uint64_t lba, uint32_t sectors, sc_time at);

  sc_time bus_sector() const { return transfer_time(512, bus_mb_s_); }
  sc_time mechanics_free() const { return mech_free_; }
  uint64_t commands() const { return commands_; }
  disk::DiskDrive& drive() { return drive_; }

 private:
  disk::DiskDrive& drive_;
  double bus_mb_s_;
  sc_time mech_free_;
  uint64_t commands_ = 0;
};

}  // namespace latsim::scsi
