"""A real editor as the client: headless Neovim (Debian's 0.7) opens a CUDA file, gets cudaport's diagnostics,
applies the preferred quick fix and writes the file; the file on disk is checked."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tooling import require_tool

from .conftest import CUDAPORT

SOURCE = """\
// 向量加法：Neovim 中的快速修复
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  float* d = nullptr;
  /* 分配 😀 */ cudaMalloc(&d, 1024 * sizeof(float));
  add<<<4, 256>>>(d, d, d, 1024);
  cudaFree(d);
  return 0;
}
"""

# Neovim 0.7: vim.lsp.start_client + buf_attach_client (vim.lsp.start came in 0.8). Its stored diagnostics lack
# the LSP range and message, so the one sent back with the code action request is rebuilt from them.
SCRIPT = r"""
local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 3")
end

local ok, problem = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "cudaport",
    cmd = { CUDAPORT, "serve", "--stdio" },
    root_dir = ROOT,
    init_options = { debounce = 20 },
  })
  if not client_id then fail("the server did not start") end
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)

  local function malloc_diagnostic()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.message:find("cudaMalloc", 1, true) then return d end
    end
    return nil
  end
  if not vim.wait(30000, function() return malloc_diagnostic() ~= nil end, 50) then
    fail("no cudaMalloc diagnostic")
  end
  local found = malloc_diagnostic()
  if found.source ~= "cudaport" then fail("diagnostic source " .. tostring(found.source)) end

  vim.api.nvim_win_set_cursor(0, { found.lnum + 1, found.col })
  local params = vim.lsp.util.make_range_params()
  params.context = {
    only = { "quickfix" },
    diagnostics = { {
      range = {
        start = { line = found.lnum, character = found.col },
        ["end"] = { line = found.end_lnum, character = found.end_col },
      },
      message = found.message,
      severity = found.severity,
      source = found.source,
      code = found.code,
    } },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 30000)
  local preferred
  for _, response in pairs(responses or {}) do
    for _, action in ipairs(response.result or {}) do
      if action.isPreferred then preferred = action end
    end
  end
  if not preferred then fail("no preferred quick fix") end
  if not preferred.title:find("hipMalloc", 1, true) then fail("unexpected fix: " .. preferred.title) end
  vim.lsp.util.apply_workspace_edit(preferred.edit, "utf-16")
  vim.cmd("write")

  -- The server sees the change: the diagnostic goes away.
  if not vim.wait(30000, function() return malloc_diagnostic() == nil end, 50) then
    fail("the cudaMalloc diagnostic stayed after the fix")
  end
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
end)
if not ok then fail(tostring(problem)) end
vim.cmd("qall!")
"""


def test_neovim_applies_a_quick_fix_and_writes_the_file(tmp_path: Path) -> None:
    nvim = require_tool("nvim", "neovim")
    project = tmp_path / "project"
    project.mkdir()
    source = project / "add.cu"
    source.write_text(SOURCE, encoding="utf-8")
    script = tmp_path / "fix.lua"
    script.write_text(
        f"local CUDAPORT = {_lua(CUDAPORT)}\nlocal ROOT = {_lua(str(project))}\n{SCRIPT}", encoding="utf-8"
    )
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    result = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", f"luafile {script}", str(source)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"neovim failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    assert source.read_text(encoding="utf-8") == SOURCE.replace("cudaMalloc(", "hipMalloc(")
    # Neovim logs every line a server writes to stderr as an error: there must be none.
    logs = list(home.rglob("lsp.log"))
    assert all("stderr" not in log.read_text(encoding="utf-8", errors="replace") for log in logs)


def _lua(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
