#!/usr/bin/env bash
# Fault trials of latsim's output transactions: `latsim run` on a file system that fills up
# and killed with -9 at seeded moments, and small sweeps killed and resumed. Prints a table
# per kind; the column "incomplete" (a directory or file that looks finished and is not)
# must be 0. See --help.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: tests/tools/fault_trials.sh [options]

Runs `latsim run` (200 ms of the reference scenario, with --timeline and --vcd beside the
output directory) under faults and checks every trial's outputs against an uninterrupted
run into the same place:

  disk-full  each trial on a fresh tmpfs of a seeded size: every other trial between 4 KiB
             and 1.3 times the space the whole output takes, the others within the last
             part, where the output directory's files are written after the streamed ones
             (--disk budget: LATSIM_DEBUG_WRITE_BUDGET in bytes instead, where mount is not
             permitted). Exit 0 must leave everything whole, a failure nothing at all, not
             even a temporary.
  kill -9    each trial killed at a seeded moment: every other trial within a run's wall
             time, the others 0 to 25 ms after the run's first output file appears in its
             temporary directory (writing and committing them takes tens of ms). What is
             visible must be whole; temporaries may stay, and the next run into the same
             place removes them.
  sweep      a 4-point sweep (-j 2) killed at a seeded moment, then `--resume`d: it must
             redo exactly the points that are not whole and end byte-identical
             (results.*, *.svg) to an uninterrupted sweep.

options:
  --seed N          seed of the trial sizes and moments (default 1)
  --disk-trials N   disk-full trials (default 100)
  --kill-trials N   kill -9 trials of a run (default 100)
  --sweep-trials N  kill -9 trials of a sweep (default 10)
  --disk MODE       tmpfs (default when mount works) or budget
  --binary PATH     latsim binary (default: build/latsim of this checkout)
  --work DIR        scratch directory (default: a new one under /tmp, removed at the end)
  -h, --help        this text

Exit status: 0 when no trial left incomplete-looking output or unremoved temporaries.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
seed=1 disk_trials=100 kill_trials=100 sweep_trials=10 disk="" binary="$here/build/latsim" work=""
while (($#)); do
  case $1 in
    --seed) seed=$2; shift 2 ;;
    --disk-trials) disk_trials=$2; shift 2 ;;
    --kill-trials) kill_trials=$2; shift 2 ;;
    --sweep-trials) sweep_trials=$2; shift 2 ;;
    --disk) disk=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "fault_trials.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x $binary ]] || { echo "fault_trials.sh: no latsim binary at $binary (build first)" >&2; exit 2; }
scenario=$here/scenarios/disk-dma-kernel-build.yaml
owned=0
if [[ -z $work ]]; then work=$(mktemp -d /tmp/latsim-fault-trials.XXXXXX); owned=1; fi
mkdir -p "$work"
p=$work/p      # every run writes here, so that the resolved scenario's paths are the same
ref=$work/ref  # the uninterrupted run's outputs
cleanup() {
  mountpoint -q "$p" 2>/dev/null && umount -l "$p"
  if ((owned)); then rm -rf "$work"; fi
}
trap cleanup EXIT
export SC_COPYRIGHT_MESSAGE=DISABLE
RANDOM=$seed

run_args=(run "$scenario" --duration 200ms -q --out "$p/run" --timeline "$p/t.json" --vcd "$p/w.vcd")
run_latsim() {  # run_latsim [ENV=VALUE...]: one run into $p; its exit status
  env "$@" "$binary" "${run_args[@]}" >/dev/null 2>>"$work/stderr.log"
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# rand_upto N: R = 0..N. Never in $(...): bash reseeds RANDOM in subshells.
rand_upto() { R=$(((RANDOM * 32768 + RANDOM) % ($1 + 1))); }
visible() { find "$p" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l; }
hidden() { find "$p" -mindepth 1 -maxdepth 1 -name '.*' | wc -l; }
clear_visible() { find "$p" -mindepth 1 -maxdepth 1 ! -name '.*' -exec rm -rf {} +; }

# Whether what is visible in $p is whole: every part (run/, t.json, t.ftrace.txt, w.vcd)
# absent or identical to the reference, run-info.json (wall time) aside.
all_whole() {
  local part
  for part in run t.json t.ftrace.txt w.vcd; do
    [[ -e $p/$part ]] || continue
    diff -r --exclude=run-info.json "$ref/$part" "$p/$part" >/dev/null 2>&1 || return 1
  done
}
everything_there() {
  local part
  for part in run t.json t.ftrace.txt w.vcd; do [[ -e $p/$part ]] || return 1; done
}

# ---- the reference ----------------------------------------------------------------------
mkdir -p "$p"
if [[ -z $disk ]]; then
  if mount -t tmpfs -o size=64m tmpfs "$p" 2>/dev/null; then disk=tmpfs; umount "$p"; else disk=budget; fi
fi
t0=$(now_ms)
run_latsim || { echo "fault_trials.sh: the reference run failed" >&2; exit 1; }
wall_ms=$(($(now_ms) - t0))
cp -a "$p" "$ref"
rm -rf "${p:?}"/*
total=$(du -sb "$ref" | cut -f1)                # bytes, for the write budget
blocks=$(du -s --block-size=1 "$ref" | cut -f1)  # what a tmpfs holds them in (whole pages)
dir_total=$(du -sb "$ref/run" | cut -f1) dir_blocks=$(du -s --block-size=1 "$ref/run" | cut -f1)
echo "reference: $(find "$ref" -type f | wc -l) files, $total bytes, ${wall_ms} ms; seed $seed; disk-full by $disk"

row() { printf '%-9s %7s %9s %15s %15s %11s %12s %16s\n' "$@"; }
header() {
  row kind trials "exit-0" "non-zero" "non-zero" incomplete temporaries "left after"
  row "" "" complete "nothing shown" "parts whole" "(must be 0)" "after trial" "next run"
}
bad=0

# ---- disk full ----------------------------------------------------------------------------
d_ok=0 d_clean=0 d_parts=0 d_incomplete=0 d_temps=0
for ((i = 0; i < disk_trials; i++)); do
  # Even trials: anywhere; odd ones: while the directory is written, after the (much larger)
  # streamed files.
  if [[ $disk == tmpfs ]]; then
    if ((i % 2 == 0)); then rand_upto $((blocks * 13 / 10)); size=$((4096 + R))
    else rand_upto $((dir_blocks * 12 / 10)); size=$((blocks - dir_blocks + R)); fi
  else
    if ((i % 2 == 0)); then rand_upto $((total * 11 / 10)); size=$R
    else rand_upto $((dir_total * 12 / 10)); size=$((total - dir_total + R)); fi
  fi
  if [[ $disk == tmpfs ]]; then
    mount -t tmpfs -o "size=$size" tmpfs "$p"
    set +e; run_latsim; rc=$?; set -e
  else
    set +e; run_latsim LATSIM_DEBUG_WRITE_BUDGET="$size"; rc=$?; set -e
  fi
  if ! all_whole; then
    d_incomplete=$((d_incomplete + 1))
  elif ((rc == 0)) && everything_there; then
    d_ok=$((d_ok + 1))
  elif ((rc != 0)) && (($(visible) == 0)); then
    d_clean=$((d_clean + 1))
  else
    d_parts=$((d_parts + 1))  # exit 0 with parts missing, or a failure that showed some
  fi
  (($(hidden) == 0)) || d_temps=$((d_temps + 1))
  if [[ $disk == tmpfs ]]; then umount "$p"; else rm -rf "$p" && mkdir -p "$p"; fi
done

# ---- kill -9 of a run ---------------------------------------------------------------------
k_ok=0 k_clean=0 k_parts=0 k_incomplete=0 k_temps=0
for ((i = 0; i < kill_trials; i++)); do
  clear_visible  # temporaries stay: the next run must remove them
  # Even trials: anywhere in a run; odd ones: while it writes its outputs (from its first
  # file in the temporary directory on).
  rand_upto $((i % 2 == 0 ? wall_ms : 25))
  delay=$R
  "$binary" "${run_args[@]}" >/dev/null 2>>"$work/stderr.log" &  # $! is latsim itself
  pid=$!
  if ((i % 2)); then
    for ((w = 0; w < 2000; w++)); do
      [[ -e $p/.run.tmp-$pid/metrics.json ]] || ! kill -0 "$pid" 2>/dev/null && break
      sleep 0.005
    done
  fi
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -9 "$pid" 2>/dev/null || true
  set +e; wait "$pid" 2>/dev/null; rc=$?; set -e
  if ! all_whole; then
    k_incomplete=$((k_incomplete + 1))
  elif ((rc == 0)) && everything_there; then
    k_ok=$((k_ok + 1))
  elif ((rc != 0)) && (($(visible) == 0)); then
    k_clean=$((k_clean + 1))
  elif ((rc != 0)); then
    k_parts=$((k_parts + 1))
  else
    k_incomplete=$((k_incomplete + 1))
  fi
  (($(hidden) == 0)) || k_temps=$((k_temps + 1))
done
clear_visible
run_latsim || { echo "fault_trials.sh: the run after the kill trials failed" >&2; bad=1; }
k_left=$(hidden)
all_whole && everything_there || { echo "fault_trials.sh: the run after the kill trials is not whole" >&2; bad=1; }

echo
header
row disk-full "$disk_trials" "$d_ok" "$d_clean" "$d_parts" "$d_incomplete" "$d_temps" "-"
row kill-9 "$kill_trials" "$k_ok" "$k_clean" "$k_parts" "$k_incomplete" "$k_temps" "$k_left"
((d_incomplete == 0 && d_temps == 0 && d_parts == 0 && k_incomplete == 0 && k_left == 0)) || bad=1

# ---- kill -9 of a sweep, then --resume ------------------------------------------------------
if ((sweep_trials > 0)); then
  sweep_args=(sweep "$scenario" --param '/sys/block/hda/queue/max_sectors_kb=4..32*2'
    --duration 500ms -j 2 -q --out)
  sweep() {  # sweep DIR [--resume]
    "$binary" "${sweep_args[@]}" "$@" >/dev/null 2>>"$work/stderr.log"
  }
  t0=$(now_ms)
  sweep "$work/sw-whole"
  sweep_ms=$(($(now_ms) - t0))
  s_identical=0 s_exact=0 s_kept=0 s_incomplete=0
  for ((i = 0; i < sweep_trials; i++)); do
    dir=$work/sw-$i
    rand_upto "$sweep_ms"
    delay=$R
    "$binary" "${sweep_args[@]}" "$dir" >/dev/null 2>>"$work/stderr.log" &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    sleep 0.3  # its children die with it
    kept=0
    for pt in "$dir"/points/*/; do
      [[ -d $pt ]] || continue
      id=$(basename "$pt")
      if [[ -e $pt/COMPLETE ]] &&
        diff -r --exclude=run-info.json "$work/sw-whole/points/$id" "$pt" >/dev/null; then
        kept=$((kept + 1))
      else
        s_incomplete=$((s_incomplete + 1))
      fi
    done
    s_kept=$((s_kept + kept))
    sweep "$dir" --resume || true
    info=$(tr -d ' \n' <"$dir/sweep-run-info.json" 2>/dev/null || true)
    [[ $info == *"\"already_finished\":$kept,"* && $info == *"\"run\":$((4 - kept)),"* ]] &&
      s_exact=$((s_exact + 1))
    same=1
    for f in "$work"/sw-whole/results.* "$work"/sw-whole/*.svg; do
      cmp -s "$f" "$dir/$(basename "$f")" || same=0
    done
    ((same)) && s_identical=$((s_identical + 1))
    rm -rf "$dir"
  done
  echo
  printf '%-9s %7s %13s %17s %20s %11s\n' kind trials "points kept" "resume redid" "resume byte-" incomplete
  printf '%-9s %7s %13s %17s %20s %11s\n' "" "" "whole" "exactly missing" "identical results" "(must be 0)"
  printf '%-9s %7s %13s %17s %20s %11s\n' sweep "$sweep_trials" "$s_kept/$((4 * sweep_trials))" \
    "$s_exact" "$s_identical" "$s_incomplete"
  ((s_incomplete == 0 && s_exact == sweep_trials && s_identical == sweep_trials)) || bad=1
fi
exit "$bad"
