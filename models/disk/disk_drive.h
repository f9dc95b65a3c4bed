#pragma once
// Hard disk mechanics, whatever the interface (an IBM Deskstar 120GXP class drive by default):
// distance-dependent seek, rotational position, zoned media rate, command
// overhead, a read cache that keeps streaming ahead of sequential reads, and a
// write cache that takes data at interface rate and writes it to the media later.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>
#include "common/params.h"
#include "models/common/time.h"

namespace latsim::disk {

// The platform.disk.* knobs (disk_drive_keys), in the scenario's units, and the
// drive's fixed facts.
struct DiskDriveParams {
  // The host adapter the drive is cabled to: "ide", the south bridge's IDE channel
  // (hda); "aic7xxx", an AIC-7880 (AHA-2940UW) SCSI adapter (sda).
  std::string adapter = "ide";
  bool write_cache = true;           // hdparm -W1 (drives shipped with it on)
  int write_cache_kb = 2048;         // assumption: the whole 2 MB buffer may hold writes
  double write_overhead_ms = 0.015;  // 120GXP write command overhead
  int rpm = 7200;
  double avg_seek_ms = 8.5;          // 120GXP read seek
  double track_to_track_ms = 1.2;    // assumption (120GXP class)
  double outer_mb_s = 44.0;          // zoned media rate, outer zone
  double inner_mb_s = 22.0;          // inner zone
  double command_overhead_ms = 0.3;  // cache miss
  double cache_hit_overhead_ms = 0.1;
  int cache_kb = 2048;                           // read cache (look-ahead)
  int64_t capacity_sectors = 58168LL * 16 * 63;  // logical CHS 58168/16/63 (seed 000)
  // The platters' angle at t = 0, in revolutions: the spindle is not locked to the
  // PIT's crystal, so each boot meets it at another phase (the platform seeds it).
  double spindle_phase = 0;
  uint32_t heads = 16, sectors_per_track = 63;

  sc_time avg_seek() const { return sc_time(avg_seek_ms, SC_MS); }
  sc_time track_to_track() const { return sc_time(track_to_track_ms, SC_MS); }
  sc_time command_overhead() const { return sc_time(command_overhead_ms, SC_MS); }
  sc_time cache_hit_overhead() const { return sc_time(cache_hit_overhead_ms, SC_MS); }
  sc_time write_overhead() const { return sc_time(write_overhead_ms, SC_MS); }
  uint32_t cache_sectors() const { return uint32_t(cache_kb) * 2; }
  uint32_t write_cache_sectors() const { return uint32_t(write_cache_kb) * 2; }
  uint64_t capacity() const { return uint64_t(capacity_sectors); }
};
params::Table<DiskDriveParams> disk_drive_keys();

// When the drive can take each sector of a write command, and when the command
// is done from the drive's side (its data on the media, without write cache).
struct WritePlan {
  uint64_t lba = 0;
  uint32_t sectors = 0;
  std::vector<sc_time> accept;  // sector i may enter the buffer from accept[i]
  sc_time media_done;           // last sector on the media (the flush, with write cache)
  bool write_back = false;      // the command completes once the data is in the cache
  sc_time ready(uint32_t i) const { return accept[i]; }
};

// When each sector of a read command is in the drive's buffer.
struct ReadPlan {
  uint64_t lba = 0;
  uint32_t sectors = 0;
  sc_time not_before;   // command overhead done
  sc_time arrive0;      // sector 0 reaches the buffer (from media or read-ahead)
  sc_time sector_time;  // media pace of the following sectors
  bool cache_hit = false;
  sc_time ready(uint32_t i) const {
    const sc_time a = arrive0 + sector_time * double(i);
    return a > not_before ? a : not_before;
  }
};

class DiskDrive {
 public:
  explicit DiskDrive(const DiskDriveParams& p) : p_(p) {}

  ReadPlan read(uint64_t lba, uint32_t sectors, sc_time now);
  // A write command at `now` whose data arrives no faster than one sector per
  // `iface_sector` (the UDMA or PIO rate). With the write cache on, a sector enters
  // the cache as soon as there is room (dirty data drains to the media in command
  // order: seek, rotation, media rate); off, the command ends with its media write.
  WritePlan write(uint64_t lba, uint32_t sectors, sc_time now, sc_time iface_sector);
  // When the media is free of queued cache flushes (a read miss waits for it).
  sc_time media_free() const { return media_free_; }
  uint64_t dirty_sectors(sc_time t) const;  // written to the cache, not yet to the media

  // Datasheet-shaped pieces, public for tests.
  sc_time seek_time(uint64_t from_lba, uint64_t to_lba) const;
  sc_time rotational_wait(uint64_t lba, sc_time at) const;
  double angle(uint64_t lba) const;  // of the sector's start on its track, in turns [0, 1)
  double media_rate_mb_s(uint64_t lba) const;
  sc_time revolution() const { return sc_time(60.0 / p_.rpm, SC_SEC); }

  uint64_t commands() const { return commands_; }
  uint64_t cache_hits() const { return hits_; }
  const DiskDriveParams& params() const { return p_; }

 private:
  uint64_t cylinder(uint64_t lba) const {
    return lba / (uint64_t(p_.heads) * p_.sectors_per_track);
  }
  DiskDriveParams p_;
  uint64_t head_lba_ = 0;
  // Read-ahead stream: sector `stream_lba_` arrives at `stream_t0_`, one per stream_st_.
  bool streaming_ = false;
  uint64_t stream_lba_ = 0, consumed_ = 0;
  sc_time stream_t0_, stream_st_;
  uint64_t commands_ = 0, hits_ = 0;
  // Write cache: each command's data is one flush segment, written in order.
  struct Flush {
    uint64_t first;  // index of its first sector among all sectors ever cached
    uint32_t sectors;
    sc_time media_start;                  // first sector reaches the platter
    sc_time sector_time;                  // media pace
    sc_time on_media(uint64_t g) const {  // sector g (global index) is on the media
      return media_start + sector_time * double(g - first + 1);
    }
  };
  sc_time flushed_at(uint64_t g) const;  // when cached sector g left the cache
  std::deque<Flush> flushes_;
  uint64_t cached_total_ = 0;
  sc_time media_free_;
};

}  // namespace latsim::disk
