#include "models/disk/disk_drive.h"
#include <algorithm>
#include <cmath>

namespace latsim::disk {

params::Table<DiskDriveParams> disk_drive_keys() {
  using namespace params;
  using P = DiskDriveParams;
  return {
      bind(with_source(choice("adapter", {"ide", "aic7xxx"},
                              "host adapter the drive is behind: the IDE channel (hda) or an "
                              "AIC-7880 SCSI adapter (sda)"),
                       "the board's wiring: seed 000's hda; seed 001's AHA-2940UW"),
           &P::adapter),
      bind(with_source(of_type(ValueType::Bool, "write_cache",
                               "hdparm -W: writes complete into the drive cache, flushed to media "
                               "later"),
                       "hdparm -W1: drives shipped with it on"),
           &P::write_cache),
      bind(with_source(integer("write_cache_kb", 0, 65536, "KiB",
                               "drive buffer share holding written data not yet on the media"),
                       "assumption: the whole 2 MB buffer may hold writes"),
           &P::write_cache_kb),
      bind(
          with_source(number("write_overhead_ms", 0, 10, "ms", "drive command overhead of a write"),
                      "IBM Deskstar 120GXP: write command overhead"),
          &P::write_overhead_ms),
      bind(with_source(integer("rpm", 3600, 15000, "rpm", "spindle speed"),
                       "CALIBRATION.md IDE: IBM Deskstar 120GXP, 7200 rpm"),
           &P::rpm),
      bind(with_source(number("avg_seek_ms", 0.5, 30, "ms", "average read seek"),
                       "CALIBRATION.md IDE: 120GXP average read seek 8.2-8.5 ms"),
           &P::avg_seek_ms),
      bind(with_source(number("track_to_track_ms", 0.1, 10, "ms", "track-to-track seek"),
                       "assumption (120GXP class)"),
           &P::track_to_track_ms),
      bind(with_source(number("outer_mb_s", 1, 200, "MB/s", "media rate, outer zone"),
                       "CALIBRATION.md IDE: derived from the 120GXP timing table"),
           &P::outer_mb_s),
      bind(with_source(
               number("inner_mb_s", 1, 200, "MB/s", "media rate, inner zone (<= outer_mb_s)"),
               "CALIBRATION.md IDE: derived from the 120GXP timing table"),
           &P::inner_mb_s),
      bind(with_source(
               number("command_overhead_ms", 0, 10, "ms", "drive command overhead on a cache miss"),
               "CALIBRATION.md IDE: 120GXP command overhead on a cache miss"),
           &P::command_overhead_ms),
      bind(with_source(number("cache_hit_overhead_ms", 0, 10, "ms",
                              "drive command overhead on a cache hit"),
                       "CALIBRATION.md IDE: 120GXP command overhead on a cache hit"),
           &P::cache_hit_overhead_ms),
      bind(with_source(integer("cache_kb", 0, 65536, "KiB", "drive read (look-ahead) cache"),
                       "assumption: a 2 MB drive buffer used as read look-ahead"),
           &P::cache_kb),
      bind(with_source(integer("capacity_sectors", 1, 281474976710656.0, "sectors",
                               "capacity in 512-byte sectors (up to the LBA48 limit)"),
                       "CALIBRATION.md reference machine: geometry 58168/16/63 (seed 000)"),
           &P::capacity_sectors),
  };
}

double DiskDrive::media_rate_mb_s(uint64_t lba) const {
  // Zoned recording: outer tracks hold more sectors; rate falls linearly with LBA.
  const double f = double(std::min(lba, p_.capacity())) / double(p_.capacity());
  return p_.outer_mb_s - (p_.outer_mb_s - p_.inner_mb_s) * f;
}

sc_time DiskDrive::seek_time(uint64_t from_lba, uint64_t to_lba) const {
  const uint64_t a = cylinder(from_lba), b = cylinder(to_lba);
  const uint64_t d = a > b ? a - b : b - a;
  if (d == 0) return SC_ZERO_TIME;
  // Average seek is over one third of the stroke; seek time grows as sqrt(distance).
  const double third = double(cylinder(p_.capacity())) / 3.0;
  const double f = std::sqrt(double(d) / third);
  return p_.track_to_track() + (p_.avg_seek() - p_.track_to_track()) * f;
}

double DiskDrive::angle(uint64_t lba) const {
  // Sectors lie end to end along the recording at the zoned rate, so the angle of
  // a sector is the revolutions the media takes to pass every sector before it:
  // the integral of 512 / (rate(x) * rev) dx, with rate falling linearly (above).
  // Track and cylinder skew hide switches from a sequential transfer, so the
  // logical CHS geometry plays no part (it is a translation, not the format).
  const double rev = revolution().to_seconds();
  const double x = double(std::min(lba, p_.capacity()));
  const double r0 = p_.outer_mb_s * 1e6, r1 = p_.inner_mb_s * 1e6;
  const double k = (r0 - r1) / double(p_.capacity());  // bytes/s lost per sector inward
  const double turns =
      k == 0 ? 512.0 * x / (r0 * rev) : 512.0 / (rev * k) * std::log(r0 / (r0 - k * x));
  return turns - std::floor(turns);
}

sc_time DiskDrive::rotational_wait(uint64_t lba, sc_time at) const {
  const double rev = revolution().to_seconds();
  const double head = std::fmod(at.to_seconds() / rev + p_.spindle_phase, 1.0);
  double w = angle(lba) - head;
  if (w < 0) w += 1.0;
  // A sector "missed" by under a nanosecond is picosecond rounding of the media
  // pace (a stream continuing where the last one ended), not a lost revolution.
  if ((1.0 - w) * rev < 1e-9) w = 0;
  return sc_time(w * rev, SC_SEC);
}

ReadPlan DiskDrive::read(uint64_t lba, uint32_t sectors, sc_time now) {
  commands_++;
  ReadPlan plan;
  plan.lba = lba;
  plan.sectors = sectors;
  const bool in_stream = streaming_ && lba >= stream_lba_ && lba < consumed_ + p_.cache_sectors();
  if (in_stream) {
    hits_++;
    plan.cache_hit = true;
    plan.not_before = now + p_.cache_hit_overhead();
    plan.arrive0 = stream_t0_ + stream_st_ * double(lba - stream_lba_);
    plan.sector_time = stream_st_;
  } else {
    // A miss waits for the media: cached writes still being flushed go first.
    const sc_time after_seek =
        std::max(now + p_.command_overhead(), media_free_) + seek_time(head_lba_, lba);
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

sc_time DiskDrive::flushed_at(uint64_t g) const {
  for (const auto& f : flushes_)
    if (g >= f.first && g < f.first + f.sectors) return f.on_media(g);
  return SC_ZERO_TIME;  // flushed long ago (its segment was pruned)
}

uint64_t DiskDrive::dirty_sectors(sc_time t) const {
  uint64_t n = 0;
  for (const auto& f : flushes_)
    for (uint64_t g = f.first; g < f.first + f.sectors; ++g)
      if (f.on_media(g) > t) ++n;
  return n;
}

WritePlan DiskDrive::write(uint64_t lba, uint32_t sectors, sc_time now, sc_time iface_sector) {
  commands_++;
  streaming_ = false;  // the drive leaves its read-ahead stream to take the write
  WritePlan w;
  w.lba = lba;
  w.sectors = sectors;
  w.accept.resize(sectors);
  const sc_time not_before = now + p_.write_overhead();
  // A command larger than the whole cache is written through.
  const bool cache = p_.write_cache && p_.write_cache_sectors() >= sectors;
  w.write_back = cache;
  const uint64_t room = p_.write_cache_sectors();
  sc_time in_end = SC_ZERO_TIME;  // last sector in the buffer
  for (uint32_t i = 0; i < sectors; ++i) {
    sc_time a = not_before;
    const uint64_t g = cached_total_ + i;
    if (cache && g >= room) a = std::max(a, flushed_at(g - room));  // a dirty sector left
    w.accept[i] = a;
    in_end = std::max(in_end, a) + iface_sector;
  }
  // Written back: the command's data goes to the platter after it is all in, behind
  // earlier flushes; written through: the media follows the data as it comes.
  const sc_time go = std::max(media_free_, cache ? in_end : not_before);
  const sc_time after_seek = go + seek_time(head_lba_, lba);
  const sc_time media_start = after_seek + rotational_wait(lba, after_seek);
  const sc_time st = transfer_time(512, media_rate_mb_s(lba));
  const sc_time media_end = media_start + st * double(sectors);
  w.media_done = cache ? media_end : std::max(media_end, in_end + st);
  media_free_ = w.media_done;
  head_lba_ = lba + sectors;
  if (cache) {
    flushes_.push_back({cached_total_, sectors, media_start, st});
    cached_total_ += sectors;
    while (flushes_.size() > 1 &&
           flushes_.front().on_media(flushes_.front().first + flushes_.front().sectors - 1) <= now)
      flushes_.pop_front();
  }
  return w;
}

}  // namespace latsim::disk
