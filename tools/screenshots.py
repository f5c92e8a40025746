"""The README's screenshots, made again from this checkout: docs/images/editor.png and docs/images/report.png.

    .venv/bin/python tools/screenshots.py [--only editor|report] [--package] [--vsix PATH] [--out DIR]

- report.png: `cudaport report examples --target hip,npu`, run from this checkout's server/ (whichever cudaport the
  venv has installed), opened in Debian's headless Chromium through Playwright (the venv's `playwright` package, never a
  downloaded browser): the top of the page, its verdicts and effort, in a 1280x800 viewport.
- editor.png: the packaged extension in VS Code (code-server) in the same Chromium, through the end-to-end test's
  harness (vscode-extension/e2e/screenshot.mjs over e2e/harness.mjs; e2e/install.sh installs code-server and
  playwright-core the first time): examples/ as the workspace, examples/cuda/warp_reduce.cu open for HIP with its
  squiggles, the hover of its `__shfl_down_sync` finding (message, and the difficulty on every target) and the
  Problems panel narrowed to that file. It needs Node 20 and npm, and the VSIX that `npm run package` builds at the
  repository root (vscode-extension/cudaport-linux-x64.vsix): built here when it is missing; --package builds it
  again, so that the picture shows this checkout's extension and bundled server rather than an older VSIX.

Each PNG is then shrunk to a palette of 256 colours (fewer if it is still over about 250 KB) with Pillow, which is
not one of the project's dependencies: `.venv/bin/pip install pillow` first (without it a PNG under 250 KB is kept
as Chromium saved it). Chromium is /usr/bin/chromium, or $CUDAPORT_CHROMIUM. Nothing in the tests uses this
script; it takes about a minute (longer the first time, while e2e/install.sh installs code-server)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMAGES = REPO / "docs" / "images"
VSIX = REPO / "vscode-extension" / "cudaport-linux-x64.vsix"
CHROMIUM = os.environ.get("CUDAPORT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 800}
LIMIT = 250_000  # bytes: a README image larger than this is shrunk


def report(out: Path) -> None:
    """The HTML report of examples/ for hip and npu, the top of its page."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="cudaport-shots-") as work:
        html = Path(work) / "report.html"
        # Relative to the repository, as a user runs it in a project: the report names `examples`, not a temp path.
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "server"), os.environ.get("PYTHONPATH")])),
        }
        subprocess.run(
            [sys.executable, "-m", "cudaport", "report", "examples", "--target", "hip,npu", "-o", str(html)],
            cwd=REPO,
            env=env,
            check=True,
        )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
                page.goto(html.as_uri(), wait_until="load")
                page.evaluate("document.fonts.ready")
                page.screenshot(path=str(out))
            finally:
                browser.close()


def editor(out: Path, vsix: Path, package: bool) -> None:
    """VS Code (code-server) with a CUDA file, its squiggles, a finding's hover and the Problems panel."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        sys.exit("screenshots: the editor's screenshot needs Node.js 20 and npm")
    if package or not vsix.is_file():
        if not (REPO / "node_modules" / "typescript").is_dir():
            subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=REPO, check=True)
        subprocess.run([npm, "run", "package"], cwd=REPO, check=True)
    env = {
        **os.environ,
        "CUDAPORT_E2E_PYTHON": os.environ.get("CUDAPORT_E2E_PYTHON") or shutil.which("python3") or "python3",
    }
    script = REPO / "vscode-extension" / "e2e" / "screenshot.mjs"
    size = f"{VIEWPORT['width']}x{VIEWPORT['height']}"
    subprocess.run(
        [node, str(script), "--vsix", str(vsix), "--out", str(out), "--size", size], cwd=REPO, env=env, check=True
    )


def shrink(path: Path, limit: int = LIMIT) -> None:
    """The PNG as a palette of 256 colours (a third of the size, the same to the eye), and fewer while it is over
    `limit` bytes. Without Pillow a PNG that fits is kept in full colour."""
    try:
        from PIL import Image
    except ImportError:
        if path.stat().st_size <= limit:
            print(f"screenshots: no Pillow: {path.name} kept in full colour", file=sys.stderr)
            return
        sys.exit(f"screenshots: {path} is {path.stat().st_size} bytes, over {limit}: `pip install pillow` to shrink it")
    original = Image.open(path).convert("RGB")
    for colours in (256, 128, 64, 32):
        # No dithering: text and flat panels stay crisp.
        quantized = original.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        quantized.save(path, optimize=True)
        if path.stat().st_size <= limit:
            return
    print(f"screenshots: {path} is still {path.stat().st_size} bytes at 32 colours", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("editor", "report"), help="make one of the two")
    parser.add_argument("--package", action="store_true", help="build the VSIX again first (npm run package)")
    parser.add_argument("--vsix", type=Path, default=VSIX, help="the packaged extension (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=IMAGES, help="the folder of the PNGs (default: %(default)s)")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        sys.exit(f"screenshots: no Chromium at {CHROMIUM}: apt-get install chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    made = []
    if args.only in (None, "report"):
        report(args.out / "report.png")
        made.append(args.out / "report.png")
    if args.only in (None, "editor"):
        editor(args.out / "editor.png", args.vsix.resolve(), args.package)
        made.append(args.out / "editor.png")
    for path in made:
        shrink(path)
        print(f"screenshots: {path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
