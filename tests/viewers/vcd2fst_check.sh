#!/usr/bin/env bash
# Converts a VCD with GTKWave's vcd2fst and checks that the FST holds exactly the
# expected signals (read back with fst2vcd, scope.name per line).
#   vcd2fst_check.sh FILE.vcd EXPECTED_SIGNALS.txt
set -euo pipefail
vcd="$1"
expected="$2"
fst="${vcd%.vcd}.fst"
rm -f "${fst}"
vcd2fst "${vcd}" "${fst}"
[[ -s "${fst}" ]] || { echo "vcd2fst wrote no FST" >&2; exit 1; }
# $scope module X $end / $var wire 1 ! name $end / $upscope $end -> X.name
awk '
  $1 == "$scope" { scope[++depth] = $3; next }
  $1 == "$upscope" { depth--; next }
  $1 == "$var" { path = ""; for (i = 1; i <= depth; i++) path = path scope[i] "."; print path $5 " " $3 }
  $1 == "$enddefinitions" { exit }' >"${fst}.signals" < <(fst2vcd "${fst}")
if ! diff -u "${expected}" "${fst}.signals"; then
  echo "the FST's signals differ from ${expected}" >&2
  exit 1
fi
echo "vcd2fst: $(wc -l <"${fst}.signals") signals as expected"
