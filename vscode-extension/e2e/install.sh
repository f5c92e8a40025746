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
# What it builds against and drives, from Debian's packages: installed here when run as root (as in CI), else named.
missing=()
command -v rg >/dev/null || missing+=(ripgrep)
command -v krb5-config >/dev/null || missing+=(libkrb5-dev)  # code-server's kerberos module needs gssapi.h
command -v chromium >/dev/null || missing+=(chromium)       # the browser the test drives
command -v g++ >/dev/null || missing+=(g++)                 # native modules
command -v make >/dev/null || missing+=(make)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
  else
    echo "e2e/install.sh: missing ${missing[*]}: run  sudo apt-get install ${missing[*]}  and try again" >&2
    exit 1
  fi
fi
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
