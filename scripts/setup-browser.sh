#!/usr/bin/env bash
# Makes the system Chromium exist for the console's browser tests (test/console/): playwright-core drives
# Debian's chromium, because no browser build can be downloaded here. Nothing to do when it is installed,
# or when CHROMIUM_PATH names another one.
set -euo pipefail
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$browser" ] && exit 0
if [ -n "${CHROMIUM_PATH:-}" ]; then echo "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2; exit 1; fi
if ! command -v apt-get > /dev/null; then
  echo "Chromium is missing at $browser and apt-get is not available: install chromium, or set CHROMIUM_PATH" >&2
  exit 1
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
echo "Installing chromium with apt-get (once)..." >&2
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends chromium > /dev/null
[ -x "$browser" ] || { echo "apt-get installed chromium, but $browser is still missing" >&2; exit 1; }
echo "chromium ready at $browser" >&2
