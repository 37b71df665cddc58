#!/usr/bin/env bash
# Installs torchlogix (PyPI, needs Python >= 3.12) into a throwaway virtual environment
# under /tmp and prints its training seconds per epoch (torchlogix_epoch.py; arguments
# are passed on). A side-by-side comparison only: circuitlearn never depends on it.
#   PYTHON=python3.12 benches/peers/torchlogix_epoch.sh --lut-rank 6 --threads 1
#   PEER_VENV=/tmp/keep-me ...   reuse (or create and keep) that environment instead
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
# PEER_SCRIPT names another script of this folder to run in the environment
# (gates_epoch.sh sets it to gates_epoch.py).
"$venv/bin/python" "$here/${PEER_SCRIPT:-torchlogix_epoch.py}" "$@"
