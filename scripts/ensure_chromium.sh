#!/usr/bin/env bash
# Make sure Debian's Chromium is installed for the end-to-end tests (`playwright install` downloads
# a browser from a CDN, which an offline build cannot reach). Installs it with apt when missing.
set -euo pipefail
CHROMIUM="${GRADPLAY_CHROMIUM:-/usr/lib/chromium/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
echo "Chromium not found at $CHROMIUM: installing Debian's chromium package with apt" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
test -x "$CHROMIUM"
