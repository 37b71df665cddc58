#!/usr/bin/env bash
# The Python package's CI: the crate's fmt and clippy (-D warnings), `pip install ./python`
# into a fresh venv (maturin builds the wheel in release mode, reusing python/target), then
# its pytest suite. Without a Python 3.9+ that has venv it skips with the reason, except in
# CI (CI=true) or with CIRCUITLEARN_REQUIRE_TOOLS=1, where it fails. Run from anywhere:
# python/ci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
required() { [ "${CI:-}" = true ] || [ "${CIRCUITLEARN_REQUIRE_TOOLS:-}" = 1 ]; }
skip() {
  if required; then
    echo "python: FAILED: $1 (required: CI=true or CIRCUITLEARN_REQUIRE_TOOLS=1)" >&2
    exit 1
  fi
  echo "python: skipped: $1"
  exit 0
}
py=""
for c in ${PYTHON:-} python3 python3.13 python3.12 python3.11 python3.10 python3.9; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    py=$c
    break
  fi
done
[ -n "$py" ] || skip "no Python 3.9+ with venv and ensurepip (apt-get install python3 python3-venv)"
command -v cargo >/dev/null 2>&1 || skip "no cargo to build the extension"
cargo fmt --check --manifest-path python/Cargo.toml
cargo clippy --manifest-path python/Cargo.toml --all-targets -- -D warnings
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
"$py" -m venv "$venv"
start=$(date +%s)
"$venv/bin/pip" install -q --disable-pip-version-check ./python pytest
echo "python: built and installed the package in $(($(date +%s) - start)) s"
# The CLI the parity test compares with: the build `cargo test` left, else one on PATH.
if [ -z "${CIRCUITLEARN_BIN:-}" ] && [ -x target/debug/circuitlearn ]; then
  export CIRCUITLEARN_BIN=$PWD/target/debug/circuitlearn
fi
cd python/tests
"$venv/bin/python" -m pytest -q -rs -p no:cacheprovider .
