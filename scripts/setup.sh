#!/usr/bin/env bash
# Installs what the build and the tests need and is missing: Debian packages (as root) and the
# npm packages of package-lock.json. Safe to run again: it only acts on what is absent.
# Runs without Node: it checks Node first and, when Node is absent or too old, installs it from the
# machine's own package sources where they offer a version new enough, or stops saying what to install.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/check-node.sh

packages=(cmake ninja-build g++ nlohmann-json3-dev doctest-dev emscripten chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: run as root, or install these Debian packages first: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci when node_modules does not match the lock file.
stamp=node_modules/.vtrain-lock-stamp
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  mkdir -p node_modules
  echo "$lock_sum" > "$stamp"
fi
