#!/usr/bin/env bash
# Runs the PyTorch peer (torch_mlp.py) in a throwaway virtual environment under /tmp,
# creating it on first use. PyTorch is a comparison here, never a dependency.
set -euo pipefail
venv="${TORCH_VENV:-/tmp/torchenv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet torch
fi
exec "$venv/bin/python" "$(dirname "$0")/torch_mlp.py" "$@"
