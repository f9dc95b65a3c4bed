#include "models/ide/ide_disk.h"
#include <algorithm>
#include <cmath>

namespace latsim::ide {

double IdeDisk::media_rate_mb_s(uint64_t lba) const {
  // Zoned recording: outer tracks hold more sectors; rate falls linearly with LBA.
  const double f = double(std::min(lba, p_.capacity)) / double(p_.capacity);
  return p_.outer_mb_s - (p_.outer_mb_s - p_.inner_mb_s) * f;
}

sc_time IdeDisk::seek_time(uint64_t from_lba, uint64_t to_lba) const {
  const uint64_t a = cylinder(from_lba), b = cylinder(to_lba);
  const uint64_t d = a > b ? a - b : b - a;
  if (d == 0) return SC_ZERO_TIME;
  // Average seek is over one third of the stroke; seek time grows as sqrt(distance).
  const double third = double(cylinder(p_.capacity)) / 3.0;
  const double f = std::sqrt(double(d) / third);
  return p_.track_to_track + (p_.avg_seek - p_.track_to_track) * f;
}

sc_time IdeDisk::rotational_wait(uint64_t lba, sc_time at) const {
  const double rev = revolution().to_seconds();
  const double head = std::fmod(at.to_seconds() / rev, 1.0);
  const double target = double(lba % p_.sectors_per_track) / p_.sectors_per_track;
  double w = target - head;
  if (w < 0) w += 1.0;
  return sc_time(w * rev, SC_SEC);
}

ReadPlan IdeDisk::read(uint64_t lba, uint32_t sectors, sc_time now) {
  commands_++;
  ReadPlan plan;
  plan.lba = lba;
  plan.sectors = sectors;
  const bool in_stream = streaming_ && lba >= stream_lba_ && lba < consumed_ + p_.cache_sectors;
  if (in_stream) {
    hits_++;
    plan.cache_hit = true;
    plan.not_before = now + p_.cache_hit_overhead;
    plan.arrive0 = stream_t0_ + stream_st_ * double(lba - stream_lba_);
    plan.sector_time = stream_st_;
  } else {
    const sc_time after_seek = now + p_.command_overhead + seek_time(head_lba_, lba);
    plan.not_before = after_seek;
    plan.arrive0 = after_seek + rotational_wait(lba, after_seek);
    plan.sector_time = transfer_time(512, media_rate_mb_s(lba));
    streaming_ = true;
    stream_lba_ = lba;
    stream_t0_ = plan.arrive0;
    stream_st_ = plan.sector_time;
  }
  consumed_ = lba + sectors;
  head_lba_ = lba + sectors;
  return plan;
}

}  // namespace latsim::ide
