#!/usr/bin/env bash
# tools/sweep-slurm.sh on a real Slurm cluster: brings up a one-node cluster on localhost
# (munged, slurmctld and slurmd from Debian's munge and slurm-wlm, each with its own key,
# config, sockets, ports, state and logs in a scratch directory, so a system-wide Slurm or
# munge is neither used nor touched), submits a sharded sweep through the script, waits for
# the merge job, and compares the merged sweep byte for byte with the same sweep run
# locally. Every daemon it started is stopped when it exits. Runs as root (slurmd starts the
# jobs as their user). See --help.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: tests/tools/slurm_cluster.sh [--binary PATH] [--work DIR] [--keep-work]

  --binary PATH  latsim binary (default: build/latsim of this checkout)
  --work DIR     scratch directory (default: a new one under /tmp, removed at the end
                 unless the test failed or --keep-work is given)
  --keep-work    keep the scratch directory (config, daemon logs, sweep outputs)

Exit status: 0 passed, 1 failed, 77 skipped (not root, or munge/slurm-wlm not installed).
EOF
}

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="${root}/build/latsim"
work=""
keep_work=0
while (($#)); do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep-work) keep_work=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "slurm_cluster.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

skip() { echo "slurm_cluster.sh: SKIP: $*"; exit 77; }
fail() { echo "slurm_cluster.sh: FAIL: $*" >&2; exit 1; }
log() { echo "slurm_cluster.sh: $*"; }

[[ "$(id -u)" == 0 ]] || skip "needs root (slurmd runs jobs as their user)"
for p in munged slurmctld slurmd sbatch sinfo scontrol python3; do
  command -v "${p}" >/dev/null 2>&1 || skip "no ${p} (Debian packages munge, slurm-wlm; tools/bootstrap.sh installs them)"
done
[[ -x "${binary}" ]] || fail "no latsim binary at ${binary} (build first)"
binary="$(realpath -- "${binary}")"

if [[ -z "${work}" ]]; then
  work="$(mktemp -d /tmp/latsim-slurm-XXXXXX)"
else
  mkdir -p "${work}"
  work="$(realpath -- "${work}")"
fi
chmod 700 "${work}"  # munged refuses a key or socket others could reach
mkdir -p "${work}/munge" "${work}/slurm/state" "${work}/slurm/spool"

pids=()
passed=0
cleanup() {
  local pid
  # Daemons: slurmd first (it kills the jobs it runs), then slurmctld, then munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid="${pids[i]}"
    kill -TERM "${pid}" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
  if ((passed && !keep_work)); then
    rm -rf "${work}"
  else
    echo "slurm_cluster.sh: kept ${work} (daemon logs in slurm/*.log and munge/munged.out)" >&2
  fi
}
trap cleanup EXIT
trap 'exit 143' TERM  # ctest's timeout: stop the daemons on the way out
trap 'exit 130' INT

# --- munge: a fresh key and a daemon on its own socket -----------------------------------
munge_socket="${work}/munge/munge.socket"
dd if=/dev/urandom of="${work}/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "${work}/munge/munge.key"
munged --foreground --force --socket="${munge_socket}" --key-file="${work}/munge/munge.key" \
  --log-file="${work}/munge/munged.log" --pid-file="${work}/munge/munged.pid" \
  --seed-file="${work}/munge/munged.seed" >"${work}/munge/munged.out" 2>&1 &
pids+=($!)

# --- slurm.conf: one node, localhost, this machine's CPUs and memory ----------------------
# Two free TCP ports for slurmctld and slurmd (a system Slurm keeps its 6817 and 6818).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
# What slurmd detects (CPUs, sockets, cores, threads, memory): configuring more would drain
# the node as "low socket*core*thread count".
hardware="$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')"
conf="${work}/slurm/slurm.conf"
cat >"${conf}" <<EOF
ClusterName=latsimtest
SlurmctldHost=localhost
SlurmctldPort=${ctld_port}
SlurmdPort=${slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=${munge_socket}
CredType=cred/munge
StateSaveLocation=${work}/slurm/state
SlurmdSpoolDir=${work}/slurm/spool
SlurmctldPidFile=${work}/slurm/slurmctld.pid
SlurmdPidFile=${work}/slurm/slurmd.pid
SlurmctldLogFile=${work}/slurm/slurmctld.log
SlurmdLogFile=${work}/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: a container may not delegate them, and a test needs no confinement.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
# Small, so that the test's shards need two arrays (the script reads it with scontrol).
MaxArraySize=2
NodeName=localhost ${hardware} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="${conf}"

slurmctld -D -c >"${work}/slurm/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost >"${work}/slurm/slurmd.out" 2>&1 &
pids+=($!)

# --- wait for the node ---------------------------------------------------------------------
state=""
for _ in $(seq 120); do
  state="$(sinfo -h -N -n localhost -o %t 2>/dev/null || true)"
  [[ "${state}" == idle ]] && break
  for pid in "${pids[@]}"; do kill -0 "${pid}" 2>/dev/null || fail "a daemon died (pid ${pid}); see ${work}"; done
  sleep 0.5
done
[[ "${state}" == idle ]] || fail "the node is '${state}', not idle, after 60 s; see ${work}/slurm"
log "one-node cluster up: $(sinfo -h -o '%P %D %C %t')"

# --- the sweep, through Slurm and locally ----------------------------------------------------
scenario="${root}/scenarios/disk-dma-kernel-build.yaml"
grid=(--param "/sys/block/hda/queue/max_sectors_kb=16,128"
  --param "/sys/block/hda/queue/read_ahead_kb=32,128" --duration 1s --progress-interval 0)
cd "${work}"
start=$SECONDS
LATSIM="${binary}" timeout 180 "${root}/tools/sweep-slurm.sh" --shards 3 --max-running 2 --wait \
  --out "${work}/slurm-sweep" "${scenario}" "${grid[@]}" | tee submit.txt ||
  fail "tools/sweep-slurm.sh --wait failed; see ${work}/slurm-sweep/slurm-*.out"
log "the merge job ended $((SECONDS - start)) s after submission"

# Two arrays (MaxArraySize=2, 3 shards), throttled, with the estimated time limit; the
# merge job on one CPU with its own memory and time limit.
read -r array0 array1 < <(sed -n 's/^submitted array job(s) \([0-9]*\) \([0-9]*\):.*/\1 \2/p' submit.txt)
merge_job="$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' submit.txt)"
[[ -n "${array1:-}" && -n "${merge_job}" ]] || fail "expected two arrays and a merge job: $(cat submit.txt)"
# Every task (line) of job JOB has each of the KEY=VALUEs; so many tasks are there.
expect_job() {
  local job="$1" tasks="$2" info line
  shift 2
  info="$(scontrol -o show job "${job}")"
  [[ "$(wc -l <<<"${info}")" == "${tasks}" ]] || fail "job ${job} has not ${tasks} task(s): ${info}"
  while read -r line; do
    for want in "$@"; do
      [[ " ${line} " == *" ${want} "* ]] || fail "job ${job} lacks ${want}: ${line}"
    done
  done <<<"${info}"
}
expect_job "${array0}" 2 ArrayTaskThrottle=2 TimeLimit=00:11:00 NumCPUs=1 JobState=COMPLETED
expect_job "${array1}" 1 ArrayTaskId=0 ArrayTaskThrottle=2 TimeLimit=00:11:00 JobState=COMPLETED
expect_job "${merge_job}" 1 TimeLimit=00:11:00 NumCPUs=1 MinMemoryNode=1G JobState=COMPLETED
for k in 0 1 2; do
  grep -q "^sweep shard ${k}/3: [0-9]*/[0-9]* points, " "${work}"/slurm-sweep/slurm-*_*.out ||
    fail "no progress line of shard ${k}/3 in the array tasks' logs"
done

"${binary}" sweep "${scenario}" "${grid[@]}" --keep metrics -j 2 -q --out "${work}/local" 2>local.err ||
  fail "the local sweep failed: $(cat local.err)"

# Byte for byte, every file but the run's wall times (sweep-run-info.json) and the lock.
diff -r -x sweep-run-info.json -x .lock "${work}/local" "${work}/slurm-sweep/merged" ||
  fail "the merged Slurm sweep differs from the local one"
# --keep metrics (the script's default): a point holds its metrics and the marker only.
for p in "${work}"/slurm-sweep/merged/points/*/; do
  files="$(cd "${p}" && find . -mindepth 1 | sort | tr '\n' ' ')"
  [[ "${files}" == "./COMPLETE ./metrics.json " ]] ||
    fail "${p} holds more than COMPLETE and metrics.json: ${files}"
done
log "PASS: 4 points in 3 shards (2 arrays) merged by Slurm equal the local sweep byte for byte"
passed=1
