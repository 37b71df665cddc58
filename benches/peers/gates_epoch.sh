#!/usr/bin/env bash
# Installs torchlogix (PyPI, needs Python >= 3.12; it brings PyTorch) into a throwaway
# virtual environment under /tmp and runs gates_epoch.py there (arguments are passed on):
# one timed training epoch of a relaxed gate network in a peer. A comparison only.
#   PYTHON=python3.12 benches/peers/gates_epoch.sh --peer torchlogix --data DIR --threads 1
#   PEER_VENV=/tmp/keep-me ...   reuse (or create and keep) that environment instead
# difflogic is not installed here: put its `main-cpu` checkout on PYTHONPATH by hand
# (BENCHMARKS.md, issue 28) and pass --peer difflogic.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 12))' ||
    { echo "torchlogix needs Python >= 3.12; set PYTHON (e.g. a pyenv 3.12)" >&2; exit 2; }
if [[ -n "${PEER_VENV:-}" ]]; then
    venv="$PEER_VENV"
else
    venv="$(mktemp -d /tmp/torchlogix-venv.XXXXXX)"
    trap 'rm -rf "$venv"' EXIT
fi
[[ -x "$venv/bin/python" ]] || "$python" -m venv "$venv"
"$venv/bin/python" -c 'import torchlogix' 2>/dev/null ||
    "$venv/bin/pip" install --quiet torchlogix >&2
"$venv/bin/python" "$here/gates_epoch.py" "$@"
