#!/usr/bin/env bash
# Installs code-server (the last release whose install script accepts Node 20) and playwright-core for the
# end-to-end test. Debian's Chromium is the browser; nothing here downloads one.
set -euo pipefail
cd "$(dirname "$0")"
if [ -x node_modules/.bin/code-server ] && [ -d node_modules/playwright-core ]; then
  exit 0
fi
# code-server's install builds native modules and fetches ripgrep from hosts this network cannot reach:
# build against the local Node headers, and hand @vscode/ripgrep Debian's rg in the tarball it would download.
command -v rg >/dev/null || { echo "e2e/install.sh: ripgrep (apt-get install ripgrep) is required" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tmp/vscode-ripgrep-cache-1.15.11" "$work/rg"
cp "$(command -v rg)" "$work/rg/rg"
tar czf "$work/tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$work/rg" rg
# The nested `npm install` inside code-server's postinstall has no allowScripts of its own, so install scripts are
# allowed for this pinned install only.
TMPDIR="$work/tmp" \
npm_config_unsafe_perm=true \
npm_config_dangerously_allow_all_scripts=true \
npm_config_nodedir=/usr \
npm_config_yes=true \
  npm install --no-audit --no-fund --no-save --loglevel=error
test -x node_modules/.bin/code-server
