#!/usr/bin/env bash
# Type-check the pi and OpenCode shims and run their node tests against the real
# Python bridge. Skips (exit 0, with the reason) when node or npm is missing.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "integrations: skipped (node and npm are needed; install Node.js >= 20.6)"
    exit 0
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
    echo "integrations: skipped (node $(node --version) is older than 20)"
    exit 0
fi

# The hosts' published type packages and TypeScript, exactly as locked. No install
# scripts run: only their type declarations and pure-JS modules are used.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.cw-lock; then
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.cw-lock
fi

npx --no-install tsc -p tsconfig.json --noEmit
rm -rf dist
npx --no-install tsc -p tsconfig.json
node --test test/*.test.mjs
