#!/usr/bin/env bash
# Run a latsim sweep on a Slurm cluster: a job array with one shard of the grid per array
# task (`sbatch --array=0-(N-1)`, task K runs `latsim sweep ... --shard K/N`), and a merge
# job that starts when the array has ended and joins the shards with `latsim sweep-merge`.
#
#   tools/sweep-slurm.sh [-n SHARDS] [-c CPUS] [-o DIR] [-b SBATCH_OPTION]... [-d] \
#       SCENARIO --param KEY=VALUES [--param ...] [other `latsim sweep` options]
#
#   -n SHARDS   array tasks, one shard each (default 4)
#   -c CPUS     --cpus-per-task of each array task; the shard runs that many points at a
#               time (default 1)
#   -o DIR      output directory on a file system every node sees (default
#               out/<scenario file name>-slurm); shards go to DIR/shard-K, the merged
#               result to DIR/merged, Slurm's logs to DIR/slurm-*.out
#   -b OPTION   passed to both sbatch calls, e.g. -b --partition=short -b --time=2:00:00
#   -d          print the two sbatch commands instead of submitting them
#
# The latsim binary is $LATSIM, else `latsim` on PATH, else the build of this checkout
# ($LATSIM_BUILD_DIR, default build/). It must be reachable from the compute nodes.
#
# Every shard runs with --resume, so a requeued or resubmitted task skips the points it
# finished. The merge runs even when some tasks failed (afterany): it writes what there is,
# names the missing shards, and exits non-zero; resubmit the script (same arguments) to
# fill them in, or rerun `latsim sweep ... --out DIR/merged --resume` anywhere.
set -euo pipefail

shards=4
cpus=1
dir=""
dry=0
sbatch_opts=()
while getopts "n:c:o:b:dh" opt; do
  case "${opt}" in
    n) shards="${OPTARG}" ;;
    c) cpus="${OPTARG}" ;;
    o) dir="${OPTARG}" ;;
    b) sbatch_opts+=("${OPTARG}") ;;
    d) dry=1 ;;
    h)
      sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if (($# < 1)); then
  echo "usage: $0 [-n SHARDS] [-c CPUS] [-o DIR] [-b SBATCH_OPTION]... [-d] SCENARIO [latsim sweep options]" >&2
  exit 2
fi
if ! [[ "${shards}" =~ ^[1-9][0-9]*$ && "${cpus}" =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: -n and -c take positive integers" >&2
  exit 2
fi

scenario="$(realpath -- "$1")"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
latsim="${LATSIM:-}"
if [[ -z "${latsim}" ]]; then
  latsim="$(command -v latsim || true)"
fi
if [[ -z "${latsim}" ]]; then
  build="${LATSIM_BUILD_DIR:-build}"
  [[ "${build}" == /* ]] || build="${root}/${build}"
  latsim="${build}/latsim"
fi
if [[ ! -x "${latsim}" ]]; then
  echo "$0: no latsim binary at ${latsim}; build it (tools/latsim --help) or set LATSIM" >&2
  exit 2
fi
latsim="$(realpath -- "${latsim}")"
[[ -n "${dir}" ]] || dir="out/$(basename "${scenario%.*}")-slurm"
mkdir -p "${dir}"
dir="$(realpath -- "${dir}")"

# Quote for the /bin/sh that runs --wrap.
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
sweep_args=""
for a in "$@"; do sweep_args+=" $(q "${a}")"; done

# Check the sweep here, before anything is queued (a typo fails now, not on the nodes).
"${latsim}" sweep "${scenario}" "$@" --shard "0/${shards}" --dry-run >/dev/null

shard_cmd="$(q "${latsim}") sweep $(q "${scenario}")${sweep_args}"
shard_cmd+=" --shard \"\${SLURM_ARRAY_TASK_ID}/${shards}\""
shard_cmd+=" --out $(q "${dir}")/shard-\"\${SLURM_ARRAY_TASK_ID}\" --resume -q -j ${cpus}"
merge_cmd="$(q "${latsim}") sweep-merge"
for ((k = 0; k < shards; k++)); do merge_cmd+=" $(q "${dir}/shard-${k}")"; done
merge_cmd+=" --out $(q "${dir}/merged")"

array=(sbatch --parsable --job-name=latsim-sweep "--array=0-$((shards - 1))"
  "--cpus-per-task=${cpus}" "--output=${dir}/slurm-%A_%a.out" "${sbatch_opts[@]}"
  --wrap "${shard_cmd}")
merge=(sbatch --parsable --job-name=latsim-sweep-merge "--output=${dir}/slurm-merge-%j.out"
  "${sbatch_opts[@]}" --wrap "${merge_cmd}")

if ((dry)); then
  printf '%q ' "${array[@]}"
  echo
  printf '%q ' "${merge[@]:0:3}" "--dependency=afterany:JOBID" "${merge[@]:3}"
  echo
  exit 0
fi

job="$("${array[@]}")"
job="${job%%;*}"
merge_job="$("${merge[0]}" "${merge[1]}" "--dependency=afterany:${job}" "${merge[@]:2}")"
echo "submitted array job ${job} (${shards} shards) and merge job ${merge_job%%;*}"
echo "results: ${dir}/merged/results.md (when job ${merge_job%%;*} has run)"
