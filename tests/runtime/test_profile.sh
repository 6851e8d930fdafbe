#!/usr/bin/env bash
# `sailor profile --quick`: its outputs are valid and say what the runtime's
# layers are (tensor parallelism halves a block's parameters and shrinks its activations; the
# model state is AdamW's 16 bytes per parameter), `sailor plan` and `sailor simulate` take
# them, an interrupted profile continues where it stopped, and bad input is refused with one
# line, exit 2 and nothing written.
# Usage: test_profile.sh SAILOR_BIN
set -euo pipefail
sailor=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. A quick profile at tp 1 and 2.
out=$work/prof
"$sailor" profile --model OPT-350M --out "$out" --quick --tp 1,2 2> "$work/err" ||
  { cat "$work/err"; fail "sailor profile --quick exited $?"; }
for f in profile.json catalog.json scenario.json job.json measurements.json; do
  [[ -s $out/$f ]] || fail "$f not written"
done
[[ ! -e $out/.partial ]] || fail ".partial left behind after a complete profile"
grep -q 'measuring tp 2' "$work/err" || fail "no progress on stderr"
python3 - "$out" <<'EOF'
import json, sys
d = sys.argv[1]
p = json.load(open(f"{d}/profile.json"))
m = json.load(open(f"{d}/measurements.json"))
c = json.load(open(f"{d}/catalog.json"))
def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)
check(p["format"] == "sailor-studio-profile/1", "format")
check(p["gpu_type"].startswith("cpu-"), "GPU type named after the CPU: " + p["gpu_type"])
check(c["gpus"][0]["name"] == p["gpu_type"] and c["models"][0]["name"] == p["model"],
      "catalogue extension names the profile's GPU type and model")
check(c["models"][0]["hidden_size"] == 256 and c["models"][0]["vocab_size"] == 256,
      "the model is the runtime's (hidden 256, byte vocabulary)")
runs = {(r["tp"], r["microbatch_size"]): r for r in p["runs"]}
check(sorted(runs) == [(1, 1), (1, 2), (2, 1), (2, 2)], f"runs {sorted(runs)}")
for r in p["runs"]:
    check(len(r["layers"]) == 26, "26 plan layers")
    check(all(l["forward_s"] > 0 and l["backward_s"] > 0 for l in r["layers"]), "times > 0")
    check(r["optimizer_seconds_per_parameter"] > 0, "optimizer step measured")
b1, b2 = runs[(1, 2)]["layers"][1], runs[(2, 2)]["layers"][1]
# A block's weight matrices are split over the tp ranks; its norms and biases of the residual
# stream are not: 12 h^2 + 7 h + 6 h... split gives just over half.
check(0.45 < b2["params"] / b1["params"] < 0.55, f"tp 2 block params {b2['params']} vs {b1['params']}")
check(b2["activation_bytes"] < b1["activation_bytes"], "tp 2 keeps fewer activations per rank")
h = 256
check(b1["params"] == 12 * h * h + 13 * h, f"block params {b1['params']} = 12 h^2 + 13 h")
for u in m["units"]:
    check(abs(u["model_state_bytes_per_parameter"] - 16) < 0.5,
          f"AdamW model state {u['model_state_bytes_per_parameter']} bytes per parameter")
link = m["links"]["p2p_fit"]
check(link["bandwidth_gb_per_s"] > 0 and link["latency_s"] >= 0, "link fit")
check(c["gpus"][0]["runtime_overhead_bytes"] > 50e6, "libtorch's resident set counted")
# Ranks computing at once (NOTE [Ranks computing at once]): --quick measures k = 2..cores, and
# the GPU type's slowdown list is [1, slowdown(2), ...], each >= 1, as measured.
import os
cores = os.cpu_count()
conc = m["concurrency"]
slow = c["gpus"][0].get("shared_compute_slowdown")
if cores >= 2:
    check([u["processes"] for u in conc] == list(range(2, cores + 1)), f"k measured: {conc}")
    check(slow is not None and len(slow) == cores and slow[0] == 1, f"slowdowns {slow}")
    for u, s in zip(conc, slow[1:]):
        check(s == max(1.0, u["slowdown"]), f"slowdown {s} from {u['slowdown']}")
        check(len(u["block_seconds_together"]) == u["processes"], "one figure per process")
else:
    check(slow is None and conc == [], "one core: nothing shares")
EOF

# 2. The planner and the simulator take it.
cat > "$work/plan.json" <<EOF
{"microbatch_size": 2, "stages": [{"first_layer": 0, "last_layer": 25,
  "replicas": [{"gpu_type": "$(python3 -c "import json;print(json.load(open('$out/profile.json'))['gpu_type'])")", "tp": 1, "zone": "local"}]}]}
EOF
"$sailor" simulate --catalog "$out/catalog.json" --profiles "$out/profile.json" \
  --scenario "$out/scenario.json" --job "$out/job.json" --plan "$work/plan.json" \
  --no-analytic --json > "$work/sim.json" || fail "sailor simulate with the profile"
python3 -c "
import json,sys; p=json.load(open('$work/sim.json'))
assert p['iteration_s'] > 0, p
assert all(v.endswith('profile.json') for v in p['sources'].values()), p['sources']
" || fail "simulate: prediction from profile.json"
"$sailor" plan --catalog "$out/catalog.json" --profiles "$out/profile.json" \
  --scenario "$out/scenario.json" --job "$out/job.json" --microbatch-sizes 1,2 --json \
  > "$work/plan-out.json" || fail "sailor plan with the profile"
python3 -c "
import json; r=json.load(open('$work/plan-out.json')); best=r['plans'][0]
assert best['prediction']['iteration_s'] > 0
gpus={rep['gpu_type'] for s in best['stages'] for rep in s['replicas']}
assert gpus=={json.load(open('$out/profile.json'))['gpu_type']}, gpus
" || fail "plan: the best plan runs on the profiled device"

# 3. Resumable: a profile stopped after its tp-1 round keeps those units and measures only the
# rest when run again.
res=$work/resume
SAILOR_TEST_FAULT=profile-stop "$sailor" profile --model OPT-350M --out "$res" --quick \
  --tp 1,2 --no-links 2> "$work/err1" && fail "the injected stop did not stop"
[[ -s $res/.partial/tp1-mbs1.json && -s $res/.partial/tp1-mbs2.json ]] ||
  fail "tp 1 units not kept: $(ls "$res/.partial")"
[[ ! -e $res/profile.json ]] || fail "a stopped profile wrote profile.json"
"$sailor" profile --model OPT-350M --out "$res" --quick --tp 1,2 --no-links 2> "$work/err2" ||
  { cat "$work/err2"; fail "resumed profile failed"; }
grep -q 'tp 1 microbatch 1: measured before, kept' "$work/err2" || fail "tp 1 measured again"
grep -q 'measuring tp 2' "$work/err2" || fail "tp 2 not measured on resume"
python3 -c "
import json; p=json.load(open('$res/profile.json'))
assert sorted((r['tp'], r['microbatch_size']) for r in p['runs'])==[(1,1),(1,2),(2,1),(2,2)]
" || fail "resumed profile incomplete"

# 4. Bad input: one line naming the option, exit 2, nothing written.
refuse() {
  local expect=$1; shift
  local dir=$work/bad
  rm -rf "$dir"
  set +e
  "$sailor" profile --out "$dir" "$@" 2> "$work/bad-err"
  local rc=$?
  set -e
  [[ $rc -eq 2 ]] || fail "$* exited $rc, expected 2"
  [[ $(wc -l < "$work/bad-err") -eq 1 ]] || fail "$*: not one line: $(cat "$work/bad-err")"
  grep -q -- "$expect" "$work/bad-err" || fail "$*: '$expect' not in $(cat "$work/bad-err")"
  [[ ! -e $dir ]] || fail "$*: wrote $dir"
}
refuse '--model: got "GPT-9"' --model GPT-9 --quick
refuse 'fits in memory' --model OPT-350M --quick --microbatch-sizes 1,1000000
refuse '--tp: got 3' --model OPT-350M --quick --tp 3
refuse 'option: got "--frobnicate"' --model OPT-350M --frobnicate
refuse '--microbatch-sizes: got "x"' --model OPT-350M --microbatch-sizes x
refuse '--sharing-ranks: got "0"' --model OPT-350M --quick --sharing-ranks 0
refuse '--real-size: got given with --scale' --model OPT-350M --quick --scale --real-size
refuse '--hidden: got 64' --model OPT-350M --quick --real-size --hidden 64
echo "test_profile: ok"
