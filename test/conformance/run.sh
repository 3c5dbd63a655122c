#!/usr/bin/env bash
# The MCP conformance suites (the pinned one and the newest, each in every protocol era it speaks)
# and the inspector's schema portability check in both eras against the service (see run.ts). The
# suites need Node >= 22 and this machine has 20, so a pinned Node 24 (the npm registry's `node`
# package), the suites and the inspector are installed from tools/package-lock.json into a cache
# outside the repository, once per lock file.
#   test/conformance/run.sh                                          high rate limits
#   RATE_LIMIT_PER_MINUTE=600 RATE_LIMIT_BURST=60 test/conformance/run.sh   the service's defaults
#   CONFORMANCE_KEEP=1 test/conformance/run.sh                       keep logs and results
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${JMS_CI_CACHE:-$HOME/.cache/jms-ci}/mcp-conformance"

# The copy of the lock file is written last: it marks a finished install of exactly that lock.
if ! cmp -s "$here/tools/package-lock.json" "$cache/installed.lock"; then
  echo "installing Node 24, the MCP conformance suites and the inspector into $cache"
  mkdir -p "$(dirname "$cache")"
  staging="$(mktemp -d "$cache.XXXXXX")"
  cp "$here/tools/package.json" "$here/tools/package-lock.json" "$staging/"
  (cd "$staging" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$here/tools/package-lock.json" "$staging/installed.lock"
  rm -rf "$cache"
  mv "$staging" "$cache"
fi

export CONFORMANCE_NODE="$cache/node_modules/node/bin/node"
export CONFORMANCE_CLI="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
export CONFORMANCE_INSPECTOR="$cache/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
export CONFORMANCE_NEWEST_CLI="$cache/node_modules/conformance-newest/dist/index.js"
"$CONFORMANCE_NODE" --version >/dev/null
cd "$root"
exec node --import tsx test/conformance/run.ts
