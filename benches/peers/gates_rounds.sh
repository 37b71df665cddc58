#!/usr/bin/env bash
# Interleaved rounds (ours, torchlogix, difflogic, ours, ...) of one training epoch of the
# same relaxed gate network: fixed random wiring, 2-input gates, GroupSum 10 / tau, softmax
# cross-entropy, Adam, on the first EXAMPLES Fashion-MNIST training images encoded as
# uniform:BITS. Prints one line per run: the load average, then the run's JSON.
# Run from the repository root after `cargo build --release`:
#   PYTHON=python3.12 benches/peers/gates_rounds.sh
#   ROUNDS=3 THREADS="1 2" BATCH=1024 EXAMPLES=8192 WIDTH=20000 DEPTH=6 ...
# PEERS="torchlogix difflogic" needs difflogic's `main-cpu` checkout on PYTHONPATH
# (installed by hand, BENCHMARKS.md issue 28); the default is torchlogix alone.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds="${ROUNDS:-2}" threads="${THREADS:-1 2}" peers="${PEERS:-torchlogix}"
examples="${EXAMPLES:-3840}" bits="${BITS:-31}" width="${WIDTH:-20000}" depth="${DEPTH:-6}"
batch="${BATCH:-128}" tau="${TAU:-10}" lr="${LR:-0.01}"
fashion="${FASHION:-/usr/share/datasets/fashion-mnist}"
bin="${CIRCUITLEARN:-target/release/circuitlearn}"
work="$(mktemp -d /tmp/gates-rounds.XXXXXX)"
if [[ -z "${PEER_VENV:-}" ]]; then
    export PEER_VENV="$work/venv"
fi
trap 'rm -rf "$work"' EXIT
python3 "$here/idx_prefix.py" "$fashion" "$work/data" "$examples" 1000
load() { cut -d' ' -f1-3 /proc/loadavg; }
for ((r = 1; r <= rounds; r++)); do
    for t in $threads; do
        echo "round $r load $(load) ours $("$bin" train --data "$work/data" --domain relaxed \
            --model "gates:${width}x${depth}" --encoding "uniform:$bits" --tau "$tau" --lr "$lr" \
            --batch "$batch" --epochs 1 --threads "$t" --passes strash --hardware none \
            -o "$work/run" --json | tail -1 | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(json.dumps({k: d[k] for k in ("model", "input_bits", "train_examples", "threads", "seconds")}
                 | {"batch": d["relaxed"]["batch"]}))')"
        for p in $peers; do
            echo "round $r load $(load) $p $("$here/gates_epoch.sh" --peer "$p" --data "$work/data" \
                --bits "$bits" --width "$width" --depth "$depth" --tau "$tau" --lr "$lr" \
                --batch "$batch" --threads "$t")"
        done
    done
done
