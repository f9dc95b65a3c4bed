#!/usr/bin/env bash
# Bootstrap for the latsim wrappers (tools/latsim, tools/test).
#
#   source tools/bootstrap.sh && latsim_bootstrap [TARGET]
#   tools/bootstrap.sh [TARGET]            # same, run directly
#
# 1. Installs the Debian 12 packages latsim needs, if any are missing (checked with
#    one dpkg-query call; no apt call at all when everything is installed): those for
#    building and running only (LATSIM_PACKAGES) when a TARGET is given, those of the
#    test suite too (LATSIM_TEST_PACKAGES) when building everything.
# 2. Configures a Release build in $LATSIM_BUILD_DIR (default: build/ under the repo
#    root) when its CMakeCache.txt is missing, when the last configure failed, when
#    $LATSIM_CMAKE_ARGS is set and differs from the last configure's, or when the tests
#    are wanted and the build was configured without them (-DLATSIM_TESTS=OFF: a fresh
#    build for a TARGET does not look for the test suite's packages).
# 3. Builds TARGET (default: everything). A no-op when the build is up to date.
#
# Everything goes to stderr: stdout is left to latsim's own output.
#
# Environment:
#   LATSIM_BUILD_DIR          build directory (relative paths are taken from the repo root)
#   LATSIM_CMAKE_ARGS         extra configure arguments, e.g. -DLATSIM_SANITIZE=ON
#   LATSIM_BOOTSTRAP_DRY_RUN  =1: report missing packages and the install commands,
#                             but install nothing (configure/build still run)

# Packages from Debian 12 (bookworm). Nothing is vendored or downloaded at build time.
# Building and running latsim (tools/latsim):
LATSIM_PACKAGES=(
  cmake g++ make ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev
  nlohmann-json3-dev
  libpugixml-dev  # latsim check --junit writes its XML through pugixml (escaping, structure)
  libabsl-dev     # absl::flat_hash_map: the cache models' per-object state (hot path)
  parallel        # sharded sweeps (latsim sweep --shard with GNU parallel)
)
# The test suite, on top of those (tools/test):
LATSIM_TEST_PACKAGES=(
  libgtest-dev googletest  # the GoogleTest suites
  libbenchmark-dev  # tests/benchmarks (-DLATSIM_BENCHMARKS=ON)
  libxml2-utils  # xmllint: the tests check `latsim check --junit` output is well-formed XML
  gtkwave nodejs  # viewer tests: vcd2fst, and node for speedscope's import code
  clang-14 libclang-rt-14-dev  # tools/fuzz: libFuzzer, ASan and UBSan (the fuzz.smoke test)
  python3         # tests/tools/random_configs.py: random valid configurations
  munge slurm-wlm  # tests/tools/slurm_cluster.sh runs tools/sweep-slurm.sh on them
  trace-cmd       # the trace.dat tests read latsim's file back with `trace-cmd report`
  dpkg-dev file   # install.deb: cpack's Depends come from dpkg-shlibdeps (and file)
)

LATSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

latsim_log() { printf 'latsim: %s\n' "$*" >&2; }

# Print, one per line, those of the given packages that are not installed.
latsim_missing_packages() {
  local -A installed=()
  local name state
  # One line "<name> <status-abbrev>" per known package ("ii " = installed);
  # unknown names are only complained about on stderr.
  while read -r name state; do
    if [[ "${state}" == ii ]]; then installed["${name}"]=1; fi
  done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null || true)
  local pkg
  for pkg in "$@"; do
    [[ -n "${installed[${pkg}]:-}" ]] || printf '%s\n' "${pkg}"
  done
}

latsim_install_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    latsim_log "warning: dpkg-query not found (not Debian?); not checking packages: ${LATSIM_PACKAGES[*]}"
    return 0
  fi
  local missing
  mapfile -t missing < <(latsim_missing_packages "${LATSIM_PACKAGES[@]}")
  if ((${#missing[@]} == 0)); then
    return 0
  fi

  local -a sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo env)
    elif [[ "${LATSIM_BOOTSTRAP_DRY_RUN:-}" != 1 ]]; then
      latsim_log "error: missing Debian packages: ${missing[*]}"
      latsim_log "error: not root and sudo is not available; install them as root with:"
      latsim_log "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
      return 1
    fi
  fi

  latsim_log "installing missing Debian packages: ${missing[*]}"
  local -a update=("${sudo[@]}" DEBIAN_FRONTEND=noninteractive apt-get update)
  local -a install=("${sudo[@]}" DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}")
  if [[ -z "${sudo[*]}" ]]; then
    update=(env "${update[@]}")
    install=(env "${install[@]}")
  fi
  if [[ "${LATSIM_BOOTSTRAP_DRY_RUN:-}" == 1 ]]; then
    latsim_log "dry run, would run: ${update[*]}"
    latsim_log "dry run, would run: ${install[*]}"
    return 0
  fi
  if ! "${update[@]}" </dev/null >&2; then
    latsim_log "error: apt-get update failed"
    return 1
  fi
  if ! "${install[@]}" </dev/null >&2; then
    latsim_log "error: apt-get install failed for: ${missing[*]}"
    return 1
  fi
}

# Absolute path of the build directory.
latsim_build_dir() {
  local dir="${LATSIM_BUILD_DIR:-build}"
  [[ "${dir}" == /* ]] || dir="${LATSIM_ROOT}/${dir}"
  printf '%s\n' "${dir}"
}

latsim_nproc() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2; }

# Run a command with its output in LOG; show the log on stderr only if it fails.
latsim_quietly() {
  local log="$1"
  shift
  "$@" >"${log}" 2>&1 </dev/null && return 0
  local rc=$?
  cat "${log}" >&2
  latsim_log "error: command failed (exit ${rc}): $* (log: ${log})"
  return "${rc}"
}

# Configure; TESTS=1: with the test suite (a build configured without it is reconfigured).
latsim_configure() {
  local tests="${1:-1}"
  local build_dir
  build_dir="$(latsim_build_dir)"
  local -a extra=()
  read -r -a extra <<<"${LATSIM_CMAKE_ARGS:-}"
  local stamp="${build_dir}/latsim-cmake-args.txt"
  local cache="${build_dir}/CMakeCache.txt"

  # The stamp is written only after a successful configure, so a failed one is retried.
  if [[ -f "${cache}" && -f "${stamp}" ]]; then
    # Configured already; reconfigure only when new extra arguments or the tests are asked for.
    if { ((${#extra[@]} == 0)) || [[ "$(<"${stamp}")" == "${extra[*]}" ]]; } &&
      ! { [[ "${tests}" == 1 ]] && grep -q '^LATSIM_TESTS:BOOL=OFF$' "${cache}"; }; then
      return 0
    fi
  fi
  rm -f "${stamp}"
  # A fresh build for the binary alone leaves the tests out; asked for, they are put back.
  local -a tests_arg=()
  if [[ "${tests}" == 1 ]]; then
    tests_arg=(-DLATSIM_TESTS=ON)
  elif [[ ! -f "${cache}" ]]; then
    tests_arg=(-DLATSIM_TESTS=OFF)
  fi

  local -a gen=()
  if [[ ! -f "${build_dir}/CMakeCache.txt" && -z "${CMAKE_GENERATOR:-}" ]] &&
    command -v ninja >/dev/null 2>&1; then
    gen=(-G Ninja)
  fi
  mkdir -p "${build_dir}"
  latsim_log "configuring ${build_dir} (Release${extra[*]:+ ${extra[*]}})"
  latsim_quietly "${build_dir}/latsim-configure.log" \
    cmake -S "${LATSIM_ROOT}" -B "${build_dir}" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE=Release "${tests_arg[@]}" "${extra[@]}" || return
  printf '%s\n' "${extra[*]}" >"${stamp}"
}

# Build TARGET (empty: all). Quiet on success, full output on failure.
latsim_build() {
  local target="${1:-}"
  local build_dir
  build_dir="$(latsim_build_dir)"
  local -a cmd=(cmake --build "${build_dir}" -j "$(latsim_nproc)")
  [[ -z "${target}" ]] || cmd+=(--target "${target}")
  local log="${build_dir}/latsim-build.log"

  # Run the build in the background and say something only if it takes a while:
  # an up-to-date build finishes well within the timeout and prints nothing.
  local fd rc=""
  exec {fd}< <(if "${cmd[@]}" >"${log}" 2>&1 </dev/null; then echo 0; else echo "$?"; fi)
  if ! read -r -t 2 -u "${fd}" rc; then
    latsim_log "building ${target:-all targets} in ${build_dir} (output shown only on failure)"
    read -r -u "${fd}" rc || rc=""
  fi
  exec {fd}<&-
  if [[ "${rc}" == 0 ]]; then
    return 0
  fi
  cat "${log}" >&2
  latsim_log "error: build failed (exit ${rc:-unknown}): ${cmd[*]} (log: ${log})"
  return 1
}

# The viewer tests' npm packages (tests/viewers: speedscope), from package-lock.json,
# reinstalled only when the lock file changed. Debian's nodejs may come without npm.
latsim_viewer_deps() {
  local dir="${LATSIM_ROOT}/tests/viewers"
  [[ -f "${dir}/package-lock.json" ]] || return 0
  if ! command -v npm >/dev/null 2>&1; then
    local -a LATSIM_PACKAGES=(npm)
    latsim_install_packages || return
  fi
  if [[ "${dir}/node_modules/.package-lock.json" -nt "${dir}/package-lock.json" ]]; then
    return 0
  fi
  latsim_log "installing the viewer tests' npm packages (npm ci in tests/viewers)"
  latsim_quietly "${dir}/npm-ci.log" npm ci --prefix "${dir}" --no-audit --no-fund --ignore-scripts
}

# What tools/screenshot needs beyond the viewer tests: headless Chromium (Debian
# package chromium, with a font for the SVG text). Not part of the default list: a
# plain run or the test suite never starts a browser.
latsim_screenshot_deps() {
  local -a LATSIM_PACKAGES=(chromium fonts-dejavu-core)
  latsim_install_packages || return
  latsim_viewer_deps
}

# What tools/screenshot-kernelshark needs: KernelShark on a virtual X server (xvfb), a
# window-size and click tool (xdotool) and ImageMagick's `import` to capture it. Not part
# of the default list: the tests read trace.dat with trace-cmd alone.
latsim_kernelshark_deps() {
  local -a LATSIM_PACKAGES=(kernelshark xvfb xauth xdotool imagemagick fonts-dejavu-core)
  latsim_install_packages
}

latsim_bootstrap() {
  if [[ -n "${1:-}" ]]; then  # one target (tools/latsim): what building and running need
    latsim_install_packages || return
    latsim_configure 0 || return
    latsim_build "$1"
    return
  fi
  # Everything (tools/test): the test suite's packages and the viewers' npm packages too.
  local -a LATSIM_PACKAGES=("${LATSIM_PACKAGES[@]}" "${LATSIM_TEST_PACKAGES[@]}")
  latsim_install_packages || return
  latsim_viewer_deps || return
  latsim_configure 1 || return
  latsim_build ""
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  latsim_bootstrap "${1:-}"
fi
