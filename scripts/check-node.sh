#!/usr/bin/env bash
# The first thing scripts/setup.sh does, and runnable on its own on a machine without Node: checks
# that Node.js is at least the version package.json's "engines" asks for, with npm beside it.
# When it is absent or too old, it installs Debian's nodejs and npm if the machine's own package
# sources offer a version that is new enough (and it runs as root); otherwise it stops with one
# message that says what to install and how. Exit status 0 when Node and npm are ready.
set -euo pipefail
cd "$(dirname "$0")/.."

# ">=20.19" in package.json, read without Node.
need=$(sed -n 's/^ *"node": *">= *\([0-9.]*\)".*/\1/p' package.json | head -n 1)
need=${need:-20.19}

# True when version $1 (e.g. 20.20.2, v18.19.0, 1:20.1.0-1nodesource1) is at least $need.
new_enough() {
  local v=${1#v}
  v=${v#*:}            # a Debian epoch
  v=${v%%[-+~]*}       # a Debian revision or suffix
  [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$need" "$v" | sort -V | head -n 1)" = "$need" ]
}

found() {
  local node_v npm_v
  node_v=$(node --version 2>/dev/null) || node_v=
  npm_v=$(npm --version 2>/dev/null) || npm_v=
  if [ -z "$node_v" ]; then have="no Node.js"; return 1; fi
  if ! new_enough "$node_v"; then have="Node.js $node_v"; return 1; fi
  if [ -z "$npm_v" ]; then have="Node.js $node_v without npm"; return 1; fi
  return 0
}

if found; then exit 0; fi

# What the machine's own package sources offer (Debian 12's nodejs is 18, too old; a machine with
# NodeSource's repository configured offers its version).
candidate=$(apt-cache policy nodejs 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1) || candidate=
if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && new_enough "$candidate"; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: this machine has $have; vtrain needs Node.js >= $need with npm; installing nodejs $candidate from the machine's package sources"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends nodejs >/dev/null
    # NodeSource's nodejs carries npm; Debian's own needs its npm package.
    npm --version >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends npm >/dev/null
    if found; then exit 0; fi
  else
    echo "setup: this machine has $have; vtrain needs Node.js >= $need with npm. Install it as root from the machine's package sources (nodejs $candidate): apt-get install nodejs npm" >&2
    exit 1
  fi
fi

offer=${candidate:-(none)}
cat >&2 <<EOF
setup: this machine has $have; vtrain needs Node.js >= $need with npm, and the machine's package sources offer nodejs $offer.
Install Node.js 22 (LTS) with npm, for example (Debian and Ubuntu, as root) from NodeSource:
    curl -fsSL https://deb.nodesource.com/setup_22.x -o nodesource_setup.sh
    bash nodesource_setup.sh && apt-get install -y nodejs
or for your user with nvm (https://github.com/nvm-sh/nvm):
    curl -o- https://raw.githubusercontent.com/nvm-sh/nvm/v0.40.3/install.sh | bash
    . ~/.nvm/nvm.sh && nvm install 22
then run this again.
EOF
exit 1
