#!/usr/bin/env bash
# Runs gates_epoch.py in torchlogix_epoch.sh's throwaway environment (torchlogix from PyPI,
# Python >= 3.12, PyTorch with it; arguments are passed on): one timed training epoch of a
# relaxed gate network in a peer. A comparison only.
#   PYTHON=python3.12 benches/peers/gates_epoch.sh --peer torchlogix --data DIR --threads 1
#   PEER_VENV=/tmp/keep-me ...   reuse (or create and keep) that environment instead
# difflogic is not installed here: put its `main-cpu` checkout on PYTHONPATH by hand
# (BENCHMARKS.md, issue 28) and pass --peer difflogic.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PEER_SCRIPT=gates_epoch.py exec "$here/torchlogix_epoch.sh" "$@"
