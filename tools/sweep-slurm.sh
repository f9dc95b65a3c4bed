#!/usr/bin/env bash
# Run a latsim sweep on a Slurm cluster: job arrays with one shard of the grid per array
# task (task K runs `latsim sweep ... --shard K/N`), and a merge job that starts when every
# array has ended and joins the shards with `latsim sweep-merge`.
#
#   tools/sweep-slurm.sh [options] SCENARIO --param KEY=VALUES [--param ...] \
#       [other `latsim sweep` options]
#
#   -n, --shards N        array tasks, one shard each (default 4; at most one per point)
#   -c, --cpus N          --cpus-per-task of each array task; the shard runs that many
#                         points at a time (default 1)
#   -o, --out DIR         output directory on a file system every node sees (default
#                         out/<scenario file name>-slurm); shards go to DIR/shard-K, the
#                         merged result to DIR/merged, Slurm's logs to DIR/slurm-*.out
#   -r, --max-running N   at most N array tasks run at once (the array's %N throttle)
#   -t, --time TIME       time limit of each array task (default: an estimate, below)
#   --merge-time TIME     time limit of the merge job (default: an estimate, below)
#   --merge-mem SIZE      memory of the merge job (default 1G; it runs on one CPU)
#   -b, --sbatch OPTION   passed to every sbatch call, e.g. -b --partition=short
#   --array-sbatch OPTION passed to the arrays' sbatch calls only
#   --merge-sbatch OPTION passed to the merge job's sbatch call only
#   -w, --wait            wait for the merge job to end and exit with its status
#   -d, --dry-run         print the sbatch commands instead of submitting them
#
# A cluster caps an array's indexes below MaxArraySize (`scontrol show config`; 1001 when
# it cannot be read): more shards are submitted as several arrays, each task adding its
# array's offset to its index, and the merge job waits for all of them. With -r the arrays
# run one after another, so that no more than N tasks run at once.
#
# Time limits: a task runs ceil(points/CPUs) points one after another, estimated at one wall
# second per simulated second of the sweep's longest point (the shipped scenarios run 10 to
# 60 times faster than real time) plus 2 s each, and 10 minutes for the node and the file
# system; the merge at 0.1 s per point (a few file operations on a shared file system) plus
# 10 minutes. Every shard runs with --resume: a task stopped at its limit goes on where it
# stopped when the script is run again with the same arguments.
#
# Points keep only metrics.json (`--keep metrics`: each point runs in the node's TMPDIR and
# copies what it keeps) unless the sweep options say --keep traces or --keep all. Shards log
# a progress line every 30 s (`--progress-interval` to change it).
#
# The latsim binary is $LATSIM, else `latsim` on PATH, else the build of this checkout
# ($LATSIM_BUILD_DIR, default build/). It must be reachable from the compute nodes.
#
# The merge runs even when some tasks failed (afterany): it writes what there is, names the
# missing shards, and exits non-zero; resubmit the script (same arguments) to fill them in,
# or rerun `latsim sweep ... --out DIR/merged --resume` anywhere.
set -euo pipefail

die() {
  echo "$0: $*" >&2
  exit 2
}

shards=4
cpus=1
dir=""
max_running=""
shard_time=""
merge_time=""
merge_mem=1G
wait=0
dry=0
both_opts=()
array_opts=()
merge_opts=()
while (($#)); do
  opt="$1"
  val=""
  has_val=0
  if [[ "${opt}" == --*=* ]]; then
    val="${opt#*=}"
    opt="${opt%%=*}"
    has_val=1
  fi
  case "${opt}" in
    -n | --shards | -c | --cpus | -o | --out | -r | --max-running | -t | --time | --merge-time | \
      --merge-mem | -b | --sbatch | --array-sbatch | --merge-sbatch)
      if ((!has_val)); then
        (($# >= 2)) || die "${opt} needs a value (see --help)"
        val="$2"
        shift
      fi
      shift
      ;;
    -w | --wait | -d | --dry-run | -h | --help) shift ;;
    --)
      shift
      break
      ;;
    -*) die "unknown option ${opt} (see --help)" ;;
    *) break ;;
  esac
  case "${opt}" in
    -n | --shards) shards="${val}" ;;
    -c | --cpus) cpus="${val}" ;;
    -o | --out) dir="${val}" ;;
    -r | --max-running) max_running="${val}" ;;
    -t | --time) shard_time="${val}" ;;
    --merge-time) merge_time="${val}" ;;
    --merge-mem) merge_mem="${val}" ;;
    -b | --sbatch) both_opts+=("${val}") ;;
    --array-sbatch) array_opts+=("${val}") ;;
    --merge-sbatch) merge_opts+=("${val}") ;;
    -w | --wait) wait=1 ;;
    -d | --dry-run) dry=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
  esac
done
if (($# < 1)); then
  echo "usage: $0 [options] SCENARIO [latsim sweep options] (see --help)" >&2
  exit 2
fi
positive='^[1-9][0-9]*$'
[[ "${shards}" =~ ${positive} ]] || die "--shards takes a positive integer, not '${shards}'"
[[ "${cpus}" =~ ${positive} ]] || die "--cpus takes a positive integer, not '${cpus}'"
[[ -z "${max_running}" || "${max_running}" =~ ${positive} ]] ||
  die "--max-running takes a positive integer, not '${max_running}'"

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
[[ -x "${latsim}" ]] || die "no latsim binary at ${latsim}; build it (tools/latsim --help) or set LATSIM"
latsim="$(realpath -- "${latsim}")"

sweep_args=("$@")
keep_given=0
for a in "${sweep_args[@]}"; do [[ "${a}" == --keep || "${a}" == --keep=* ]] && keep_given=1; done
((keep_given)) || sweep_args+=(--keep metrics)

# Check the sweep here, before anything is queued (a typo fails now, not on the nodes); its
# first line gives the grid's size and its longest point.
listing="$("${latsim}" sweep "${scenario}" "${sweep_args[@]}" --dry-run)"
header="${listing%%$'\n'*}"
if ! [[ "${header}" =~ :\ ([0-9]+)\ points\ =.*longest\ point\ ([0-9.e+]+)\ s\ simulated ]]; then
  die "cannot read the grid from \`latsim sweep --dry-run\`: ${header}"
fi
points="${BASH_REMATCH[1]}"
longest="${BASH_REMATCH[2]}"
((shards <= points)) || shards="${points}"

[[ -n "${dir}" ]] || dir="out/$(basename "${scenario%.*}")-slurm"
dir="$(realpath -m -- "${dir}")"

per_task=$(((points + shards - 1) / shards))
if [[ -z "${shard_time}" ]]; then
  shard_time="$(awk -v n="$(((per_task + cpus - 1) / cpus))" -v l="${longest}" \
    'BEGIN { m = (n * (l + 2) + 600) / 60; print (m == int(m)) ? m : int(m) + 1 }')"
fi
[[ -n "${merge_time}" ]] || merge_time=$(((points + 599) / 600 + 10))

# The largest array index this cluster takes, plus one.
max_array=""
if command -v scontrol >/dev/null 2>&1; then
  max_array="$(scontrol show config 2>/dev/null | awk '$1 == "MaxArraySize" { print $3 }' || true)"
fi
[[ "${max_array}" =~ ${positive} ]] || max_array=1001

# Quote for the /bin/sh that runs --wrap.
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
quoted_args=""
for a in "${sweep_args[@]}"; do quoted_args+=" $(q "${a}")"; done

throttle=""
[[ -z "${max_running}" ]] || throttle="%${max_running}"

# The sbatch command of the array of the shards from OFFSET on (at most max_array of them;
# task I runs shard OFFSET+I), waiting for the jobs DEPS (a:b:c) if any; into `sb`.
array_sbatch() {
  local offset="$1" deps="$2"
  local n=$((shards - offset < max_array ? shards - offset : max_array))
  local run
  run="k=\$((SLURM_ARRAY_TASK_ID + ${offset})); exec $(q "${latsim}") sweep $(q "${scenario}")"
  run+="${quoted_args} --shard \"\$k/${shards}\" --out $(q "${dir}")/shard-\"\$k\" --resume -j ${cpus}"
  sb=(sbatch --parsable --job-name=latsim-sweep "--array=0-$((n - 1))${throttle}"
    "--cpus-per-task=${cpus}" "--time=${shard_time}" "--output=${dir}/slurm-%A_%a.out")
  [[ -z "${deps}" ]] || sb+=("--dependency=afterany:${deps}")
  sb+=("${both_opts[@]}" "${array_opts[@]}" --wrap "${run}")
}

# The merge job's sbatch command, after the jobs DEPS; into `sb`.
merge_sbatch() {
  local run k
  run="exec $(q "${latsim}") sweep-merge"
  for ((k = 0; k < shards; k++)); do run+=" $(q "${dir}/shard-${k}")"; done
  run+=" --out $(q "${dir}/merged")"
  sb=(sbatch --job-name=latsim-sweep-merge "--dependency=afterany:$1" --ntasks=1 --cpus-per-task=1
    "--mem=${merge_mem}" "--time=${merge_time}" "--output=${dir}/slurm-merge-%j.out")
  if ((wait)); then sb+=(--wait); fi
  sb+=("${both_opts[@]}" "${merge_opts[@]}" --wrap "${run}")
}

# Submit (or with -d print) the arrays, then the merge job. With a throttle each array waits
# for the previous one, so that it holds across arrays.
((dry)) || mkdir -p "${dir}"
jobs=()
for ((offset = 0; offset < shards; offset += max_array)); do
  prev=""
  [[ -z "${max_running}" || ${#jobs[@]} == 0 ]] || prev="${jobs[-1]}"
  array_sbatch "${offset}" "${prev}"
  if ((dry)); then
    printf '%q ' "${sb[@]}"
    echo
    jobs+=("ARRAY${#jobs[@]}")
  else
    job="$("${sb[@]}")"
    jobs+=("${job%%;*}")
  fi
done
deps="$(
  IFS=:
  echo "${jobs[*]}"
)"
merge_sbatch "${deps}"
if ((dry)); then
  printf '%q ' "${sb[@]}"
  echo
  exit 0
fi
echo "submitted array job(s) ${jobs[*]}: ${shards} shards of ${points} points, at most" \
  "${max_array} a job, ${shard_time} min each; results in ${dir}/merged when the merge has run"
exec "${sb[@]}"
