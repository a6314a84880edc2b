#!/usr/bin/env bash
# Makes Debian's Python tools exist for the Python handler kit's tests (handler-kit-python/): its unit tests
# (pytest), its `mypy --strict` check, and the worked example's scikit-learn model. They come from apt-get, the one
# package source for Python here; /usr/bin/python3 is used by name, since another python3 on PATH would not see them.
set -euo pipefail
python=/usr/bin/python3
ready() { [ -x "$python" ] && "$python" -c 'import pytest, mypy, sklearn' 2> /dev/null; }
ready && exit 0
if ! command -v apt-get > /dev/null; then
  echo "$python with pytest, mypy and scikit-learn is missing and apt-get is not available: install python3-pytest, mypy and python3-sklearn" >&2
  exit 1
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
echo "Installing python3-pytest, mypy and python3-sklearn with apt-get (once)..." >&2
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends python3 python3-pytest mypy python3-sklearn > /dev/null
ready || { echo "apt-get ran, but $python still lacks pytest, mypy or scikit-learn" >&2; exit 1; }
echo "python ready: $("$python" --version)" >&2
