#!/usr/bin/env bash
# Everything cudaport's tests need, installed before any test starts (the tests themselves never install anything:
# a missing tool is a failure that names this script). .ci/run calls it; so can you.
#
#   tools/prerequisites.sh           # all of it: the Python environment, then the compilers, the editor, the browser,
#                                    # the font, Node's toolchain and code-server, NVIDIA's nvcc, the real-code corpus
#   tools/prerequisites.sh --fast    # the Python environment only: enough for the fast tests (pytest -m "not tools")
#   tools/prerequisites.sh --check   # say what is missing, install nothing (exit 1 if anything is)
#
# Debian packages are installed with apt-get when run as root (as CI runs); otherwise the script names the
# `sudo apt-get install` line to run and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
check=0
for argument in "$@"; do
  case "$argument" in
    --fast) fast=1 ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "prerequisites.sh: unknown option $argument (--fast, --check)" >&2; exit 2 ;;
  esac
done

say() { printf '%s\n' "prerequisites: $*"; }
missing_any=0

# ---- the Python environment --------------------------------------------------------------------------------------
if [ "$check" = 1 ]; then
  if .venv/bin/python -c "import cudaport, pytest, pytest_lsp, pre_commit, yaml, playwright" 2>/dev/null; then
    say "present: .venv with cudaport and its test tools"
  else
    say "missing: .venv with cudaport and its test tools (python3 -m venv .venv && .venv/bin/pip install -e '.[dev]')"
    missing_any=1
  fi
else
  # pip install is quick when everything is there, and brings what pyproject.toml added since
  say "installing .venv: cudaport (editable) and its test tools (pytest, pytest-lsp, ruff, mypy, pre-commit, playwright's driver)"
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
    # the pip that venv bundles writes console scripts that import `re` before cudaport starts; a current pip does not
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip || say "could not upgrade pip; going on"
  fi
  .venv/bin/pip install -q --disable-pip-version-check -e '.[dev]'
fi
if [ "$fast" = 1 ]; then
  [ "$missing_any" = 0 ] || exit 1
  exit 0
fi

# ---- Debian packages: binary|package|why -------------------------------------------------------------------------
packages=(
  "hipcc|hipcc|compiles the files fix rewrote for HIP (tests/test_compile_hip.py, tests/test_dual_stack.py)"
  "/usr/include/hiprand/hiprand.h|libhiprand-dev|the hipRAND headers a rewritten cuRAND file includes"
  "/usr/include/rocrand/rocrand.h|librocrand-dev|the rocRAND headers hipRAND's include"
  "/usr/include/hipsparse/hipsparse.h|libhipsparse-dev|the hipSPARSE headers a rewritten cuSPARSE file includes"
  "g++|g++|compiles rewritten files against the ACL and CNRT signatures (npu, mlu), and is nvcc's host compiler"
  "make|make|builds code-server's native modules"
  "git|git|pre-commit runs the hooks from a git checkout (tests/test_ci_integrations.py)"
  "nvim|neovim|a real editor driving the language server (tests/lsp/test_neovim.py)"
  "chromium|chromium|the browser for the report page and for VS Code in code-server (never a downloaded one)"
  "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc|fonts-noto-cjk|the Chinese report renders as glyphs, not boxes"
  "rg|ripgrep|code-server's search, handed to its install in place of a download"
  "krb5-config|libkrb5-dev|code-server's kerberos module builds against gssapi.h"
  "node|nodejs|builds and tests the VS Code extension"
  "npm|npm|installs the extension's toolchain and code-server"
)
wanted=()
for entry in "${packages[@]}"; do
  IFS='|' read -r thing package why <<<"$entry"
  if [[ "$thing" == /* ]]; then present=$([ -e "$thing" ] && echo 1 || echo 0); else present=$(command -v "$thing" >/dev/null && echo 1 || echo 0); fi
  if [ "$present" = 1 ]; then
    say "present: $package"
  else
    say "missing: $package ($why)"
    wanted+=("$package")
  fi
done
if [ ${#wanted[@]} -gt 0 ]; then
  if [ "$check" = 1 ]; then
    missing_any=1
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing with apt-get: ${wanted[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=900 update -qq
    apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${wanted[@]}" >/dev/null
  else
    say "run:  sudo apt-get install ${wanted[*]}  and then this script again"
    exit 1
  fi
fi

# ---- what pip, npm and PyPI bring ----------------------------------------------------------------------------------
if [ "$check" = 1 ]; then
  .venv/bin/python tests/tooling.py --check || missing_any=1
  [ -d node_modules ] || { say "missing: node_modules (npm install)"; missing_any=1; }
  [ -x vscode-extension/e2e/node_modules/.bin/code-server ] || { say "missing: code-server (vscode-extension/e2e/install.sh)"; missing_any=1; }
  exit "$missing_any"
fi
# nvcc for the dual-stack compile check (the fixed tree must build for CUDA too), from NVIDIA's wheels unless the
# machine has a CUDA toolkit; the PyPI source distributions tests/test_fix_real_code.py samples
.venv/bin/python tests/tooling.py --install
if [ -d node_modules ]; then
  say "present: node_modules (the extension's TypeScript, esbuild, vsce)"
else
  say "installing node_modules with npm: the extension's TypeScript, esbuild and vsce"
  npm install --no-audit --no-fund --loglevel=error
fi
if [ -x vscode-extension/e2e/node_modules/.bin/code-server ]; then
  say "present: code-server and playwright-core (the extension's end-to-end test)"
else
  say "installing code-server and playwright-core: VS Code in the browser, for the extension's end-to-end test"
  vscode-extension/e2e/install.sh
fi
say "everything the tests need is here"
