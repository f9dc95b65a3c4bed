#!/usr/bin/env python3
"""Run latsim on random valid configurations; report crashes, hangs and failures.

The configurations that once crashed (REGRESSIONS) run first; then each configuration
is drawn from the seed: a base (a scenario of scenarios/, one case of
a hypothesis in scenarios/hypotheses/ on its base, or a generated scenario of one to
three random workloads), a kernel flavour, values within the declared ranges of
`latsim keys` for a random subset of keys and of the workloads' parameters, and a short
duration. Each runs with a timeout. A signal is a crash, the timeout a hang, exit 2 a
rejection by validation (counted: combinations the ranges cannot express), any other
non-zero exit a failure; each is printed with the command that reproduces it.
Exit status: 0 when no configuration crashed, hung or failed.

--extremes instead runs every numeric key at its maximum (each workload kind's keys
one at a time and all at once, then the platform and kernel keys one at a time) for the
shortest useful duration, and prints each run's wall time and peak memory: the work a
configuration costs before the simulation gets going.

Only the Python 3 standard library is used.
"""
import argparse
import concurrent.futures
import math
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEY_LINE = re.compile(r"^(\S+)  \[([^\]]+)\](.*)$")
# Keys a configuration does not draw: identity, outputs, free text, the duration (set
# short on the command line) and the workload list itself.
SKIPPED = re.compile(r"^(schema_version|name|description|duration|outputs\..*|tracing\.spans|"
                     r"kernel\.version|workload)$|\.name$")
AFFINITIES = ["none", "all", "0", "1", "0,1", "0-1", "1-3", "0-7"]
# Configurations that once crashed, run before the random ones.
REGRESSIONS = [
    # rt, POSIX timers, four unpinned threads: a sigwait on a freed timer's lock
    ("scenarios/rt-posix-timers.yaml", ["workload.0.threads=4"], "0.01s"),
    # rt, ReiserFS's BKL on two CPUs: a retake that slept dropped the BKL a second time
    ("scenarios/preempt-2.4-dbench.yaml", ["kernel.flavour=rt", "platform.cpu.count=2"], "0.05s"),
]


class Key:
    """One row of `latsim keys`: path, kind of value and what it accepts."""

    def __init__(self, path, kind, rest):
        self.path, self.kind = path, kind.split(",")[0]
        accepted = re.search(r"accepted: (.*?)(?:  default:|  required|$)", rest)
        self.accepted = accepted.group(1) if accepted else ""
        implemented = re.search(r"; implemented: (.*)$", self.accepted)
        if implemented:
            self.accepted = implemented.group(1)
        multiple = re.search(r", a multiple of (\d+)", self.accepted)
        self.multiple = int(multiple.group(1)) if multiple else 0
        self.range = None
        bounds = re.match(r"^(-?[\d.e+]+)\.\.(-?[\d.e+]+)", self.accepted)
        if bounds and self.kind in ("integer", "number"):
            self.range = (float(bounds.group(1)), float(bounds.group(2)))

    def numeric(self):
        return self.range is not None

    def choices(self):
        if self.kind in ("bool",):
            return ["true", "false"]
        if self.kind == "on/off":
            return ["on", "off"]
        if self.kind == "0/1":
            return ["0", "1"]
        if self.kind in ("enum", "enum (int)"):
            return [c.strip() for c in self.accepted.split(",")]
        return None

    def draw(self, rng):
        """A random accepted value as --set text, or None for keys not drawn."""
        if self.path.endswith(".affinity"):
            return rng.choice(AFFINITIES)
        if self.kind == "uint64":
            return str(rng.randrange(0, 2**32))
        choices = self.choices()
        if choices:
            return rng.choice(choices)
        if not self.numeric():
            return None
        lo, hi = self.range
        pick = rng.random()
        if pick < 0.15:
            x = lo
        elif pick < 0.3:
            x = hi
        elif lo >= 0 and hi > 100 * max(lo, 1):  # wide ranges: every order of magnitude
            x = math.exp(rng.uniform(math.log(max(lo, 1)), math.log(hi)))
        else:
            x = rng.uniform(lo, hi)
        return self.text(x)

    def text(self, x):
        lo, hi = self.range
        x = min(max(x, lo), hi)
        if self.kind == "integer":
            n = int(round(x))
            if self.multiple:
                n = max(int(math.ceil(lo / self.multiple)) * self.multiple,
                        n // self.multiple * self.multiple)
            return str(n)
        return "%.6g" % x


def read_keys(latsim):
    out = subprocess.run([latsim, "keys"], capture_output=True, text=True, check=True).stdout
    keys, kinds = {}, {}
    for line in out.splitlines():
        m = KEY_LINE.match(line)
        if not m:
            continue
        key = Key(m.group(1), m.group(2), m.group(3))
        wl = re.match(r"^workload\[\]\.([a-z0-9_]+)\.(.+)$", key.path)
        if wl:
            key.path = wl.group(2)
            kinds.setdefault(wl.group(1), []).append(key)
        elif not SKIPPED.search(key.path):
            keys[key.path] = key
    return keys, kinds


def scenario_workloads(path):
    """The kinds of a scenario file's workload list, in order (its flow-style items)."""
    kinds, inside = [], False
    for line in Path(path).read_text().splitlines():
        if re.match(r"^workload:", line):
            inside = True
        elif inside and re.match(r"^\S", line):
            break
        elif inside:
            m = re.match(r"^\s*-\s*([a-z0-9_]+):", line)
            if m:
                kinds.append(m.group(1))
    return kinds


def hypothesis_cases(path):
    """(base scenario, [KEY=VALUE...]) of each case of a hypothesis file."""
    text = Path(path).read_text()
    base = re.search(r"^base:\s*(\S+)", text, re.M)
    if not base:
        return []
    base_path = (Path(path).parent / base.group(1)).resolve()
    cases, current, in_set = [], None, False
    for line in text.splitlines():
        if re.match(r"^\s*- name:", line):
            current = []
            cases.append((base_path, current))
            in_set = False
            continue
        flow = re.match(r"^\s*set:\s*\[(.*)\]\s*$", line)
        if flow and current is not None:
            current += [s.strip().strip("'\"") for s in flow.group(1).split(",") if "=" in s]
            continue
        if re.match(r"^\s*set:\s*$", line):
            in_set = True
            continue
        item = re.match(r"^\s*-\s*(['\"]?)([^{].*=.*?)\1\s*$", line)
        if in_set and item and current is not None:
            current.append(item.group(2))
        elif in_set and not item:
            in_set = False
    return cases


def bases():
    """Every base: (scenario file, its workload kinds, overrides)."""
    found = []
    for s in sorted((ROOT / "scenarios").glob("*.yaml")):
        found.append((s, scenario_workloads(s), []))
    for h in sorted((ROOT / "scenarios" / "hypotheses").glob("*.yaml")):
        for base, sets in hypothesis_cases(h):
            found.append((base, scenario_workloads(base), sets))
    return found


def generated_scenario(rng, kinds, keys, directory, index):
    """A scenario of one to three random workloads with random parameters."""
    chosen = [rng.choice(sorted(kinds)) for _ in range(rng.randint(1, 3))]
    items = []
    for i, kind in enumerate(chosen):
        params = [k for k in kinds[kind] if k.draw(rng) is not None]
        picked = rng.sample(params, rng.randint(0, len(params)))
        values = ["name: w%d" % i] + ["%s: %s" % (k.path, yaml_scalar(k.draw(rng))) for k in picked]
        items.append("  - %s: {%s}" % (kind, ", ".join(values)))
    lines = ["schema_version: 1", "name: random-%d" % index, "seed: %d" % rng.randrange(1000),
             "platform:", "  preset: %s" % rng.choice(keys["platform.preset"].choices())]
    if "x11" in chosen:
        lines.append("  video: {card: permedia2}")
    lines += ["workload:"] + items
    path = Path(directory) / ("random-%d.yaml" % index)
    path.write_text("\n".join(lines) + "\n")
    return path, chosen


def yaml_scalar(text):
    return text if re.match(r"^[A-Za-z0-9_.-]+$", text) else "'%s'" % text


def draw_config(rng, keys, kinds, all_bases, directory, index, max_duration):
    """(scenario file, [--set overrides], duration) of configuration `index`."""
    if rng.random() < 0.3:
        scenario, workloads = generated_scenario(rng, kinds, keys, directory, index)
        sets = []
    else:
        scenario, workloads, base_sets = rng.choice(all_bases)
        sets = list(base_sets)
    sets.append("kernel.flavour=%s" % rng.choice(keys["kernel.flavour"].choices()))
    for key in rng.sample(sorted(keys), rng.randint(0, 8)):
        value = keys[key].draw(rng)
        if value is not None and key != "kernel.flavour":
            sets.append("%s=%s" % (key, value))
    for i, kind in enumerate(workloads):
        params = [k for k in kinds.get(kind, []) if k.draw(rng) is not None]
        for k in rng.sample(params, rng.randint(0, min(3, len(params)))):
            sets.append("workload.%d.%s=%s" % (i, k.path, k.draw(rng)))
    return scenario, sets, "%.3fs" % rng.uniform(0.01, max_duration)


FIXED = re.compile(r"error: (\S+): is fixed to (\S+) by kernel\.flavour")
ABSENT = re.compile(r"error: (\S+): is a voluntary-preempt switch; kernel\.flavour")


def with_flavour_fixed(latsim, scenario, sets, duration):
    """The overrides with the switches the chosen flavour fixes set as it fixes them."""
    for _ in range(3):
        cmd = command(latsim, scenario, sets, duration, None)
        out = subprocess.run(cmd, capture_output=True, text=True).stderr
        fixed = dict(FIXED.findall(out) + [(k, "0") for k in ABSENT.findall(out)])
        if not fixed:
            break
        sets = [s for s in sets if s.split("=", 1)[0] not in fixed]
        sets += ["%s=%s" % kv for kv in sorted(fixed.items())]
    return sets


def command(latsim, scenario, sets, duration, out):
    """`latsim run` of a configuration; `latsim validate` of it without `out`."""
    if out is None:
        cmd = [latsim, "validate", str(scenario), "--duration", duration]
        return cmd + [a for s in sets for a in ("--set", s)]
    cmd = [latsim, "run", str(scenario), "--duration", duration, "--out", str(out), "-q"]
    for s in sets:
        cmd += ["--set", s]
    return cmd


def run(cmd, timeout):
    """(exit status, negative for a signal, or 'hang'; seconds; stderr's last line)."""
    start = time.monotonic()
    with subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          start_new_session=True,
                          env=dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE")) as p:
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # the run and anything it started
            except ProcessLookupError:
                pass
            p.communicate()
            return "hang", time.monotonic() - start, ""
        last = err.strip().splitlines()[-1] if err.strip() else ""
        return p.returncode, time.monotonic() - start, last


def verdict(status):
    if status == "hang":
        return "hung"
    if status == 0:
        return "ok"
    if status == 2:
        return "rejected"
    return "crashed" if status < 0 else "failed"


def random_run(args):
    keys, kinds = read_keys(args.latsim)
    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="latsim-random-"))
    all_bases = bases()
    configs = [(ROOT / f, list(sets), d) for f, sets, d in REGRESSIONS]
    configs += [draw_config(rng, keys, kinds, all_bases, tmp, len(configs) + i, args.max_duration)
                for i in range(args.count)]

    def one(i):
        scenario, sets, duration = configs[i]
        sets = with_flavour_fixed(args.latsim, scenario, sets, duration)
        cmd = command(args.latsim, scenario, sets, duration, tmp / ("out-%d" % i))
        status, seconds, last = run(cmd, args.timeout)
        return i, verdict(status), status, seconds, last, cmd

    counts = {v: 0 for v in ("ok", "rejected", "crashed", "hung", "failed")}
    problems, rejections = [], []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, v, status, seconds, last, cmd in sorted(pool.map(one, range(len(configs)))):
            counts[v] += 1
            shown = " ".join(shlex.quote(c) for c in cmd[:5] + cmd[7:])  # without --out
            if v in ("crashed", "hung", "failed"):
                problems.append("config %d: %s (exit %s, %.1f s): %s\n  %s" %
                                (i, v, status, seconds, last, shown))
            elif v == "rejected":
                rejections.append("config %d: %s" % (i, last))
    print("configs  ok  rejected  crashed  hung  failed")
    print("%7d %3d %9d %8d %5d %7d" % (len(configs), counts["ok"], counts["rejected"],
                                       counts["crashed"], counts["hung"], counts["failed"]))
    for r in rejections if args.verbose else []:
        print(r)
    for p in problems:
        print(p)
    if problems:
        print("generated scenarios kept in %s" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if problems else 0


def extremes_run(args):
    """Every numeric key at its maximum, one at a time and per kind all at once."""
    keys, kinds = read_keys(args.latsim)
    tmp = Path(tempfile.mkdtemp(prefix="latsim-extremes-"))
    runs = []
    for kind in sorted(kinds):
        numeric = [k for k in kinds[kind] if k.numeric()]
        lines = ["schema_version: 1", "name: extreme-%s" % kind]
        if kind == "x11":
            lines += ["platform:", "  video: {card: permedia2}"]
        scenario = tmp / ("%s.yaml" % kind)
        scenario.write_text("\n".join(lines + ["workload:", "  - %s: {}" % kind]) + "\n")
        for k in numeric:
            runs.append(("%s.%s" % (kind, k.path), scenario,
                         ["workload.0.%s=%s" % (k.path, k.text(k.range[1]))]))
        runs.append(("%s (all at max)" % kind, scenario,
                     ["workload.0.%s=%s" % (k.path, k.text(k.range[1])) for k in numeric]))
        if kind == "kernel_build":  # every unit draws all its includes from the largest tree
            worst = {"common_headers": 0, "first_unit": math.inf, "header_files": math.inf,
                     "header_kb": math.inf, "headers_per_unit": math.inf}  # inf: the maximum
            runs.append(("kernel_build (costliest preload)", scenario,
                         ["workload.0.%s=%s" % (k.path, k.text(worst[k.path]))
                          for k in numeric if k.path in worst]))
    reference = ROOT / "scenarios" / "disk-dma-kernel-build.yaml"
    for path in sorted(keys):
        if keys[path].numeric():
            runs.append((path, reference, ["%s=%s" % (path, keys[path].text(keys[path].range[1]))]))
    print("%-55s %6s %9s  %s" % ("maximum of", "exit", "wall s", "peak RSS MB"))
    worst = 0.0
    for name, scenario, sets in runs:
        cmd = ["/usr/bin/time", "-f", "%M"] + command(args.latsim, scenario, sets,
                                                      args.extremes_duration, tmp / "out")
        status, seconds, last = run(cmd, args.timeout)
        rss = int(last) / 1024 if last.isdigit() else 0
        worst = max(worst, seconds if status == 0 else 0)
        print("%-55s %6s %9.2f %9.1f" % (name[:55], status, seconds, rss))
    print("worst wall time of a run that started: %.2f s" % worst)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--latsim", default=str(ROOT / "build" / "latsim"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-duration", type=float, default=0.05, help="simulated seconds")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per run: a hang")
    ap.add_argument("--verbose", action="store_true", help="also list the rejections")
    ap.add_argument("--extremes", action="store_true")
    ap.add_argument("--extremes-duration", default="10ms")
    args = ap.parse_args()
    return extremes_run(args) if args.extremes else random_run(args)


if __name__ == "__main__":
    sys.exit(main())
