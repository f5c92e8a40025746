// Puts the cudaport server and its Python dependencies inside the extension (bundled/), so that users need no
// pip install. Layout:
//   bundled/libs/          cudaport (with its rule data) and every pure-Python or abi3 dependency, for Python >= 3.10
//   bundled/native/cpXY/   tree-sitter's core binding, which is built per Python version (3.10 ... 3.14)
// The extension puts native/cpXY and libs on PYTHONPATH for the user's Python X.Y.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const extensionRoot = resolve(here, "..");
const repoRoot = resolve(extensionRoot, "..");
const destination = join(extensionRoot, "bundled");
// Built in a staging folder beside bundled/ and swapped in at the end: an interrupted run leaves the old bundle whole
// (no half-moved folder for the next run to trip on), and a reader never sees half of one.
const bundle = mkdtempSync(join(extensionRoot, ".bundled-"));
const python = process.env.CUDAPORT_BUNDLE_PYTHON || "python3";
const versions = ["3.10", "3.11", "3.12", "3.13", "3.14"];
const platforms = ["manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64", "manylinux_2_5_x86_64", "manylinux1_x86_64"];

function pip(args) {
  execFileSync(python, ["-m", "pip", "--disable-pip-version-check", "-q", ...args], { stdio: ["ignore", "inherit", "inherit"] });
}

function platformArgs(version) {
  const tag = version.replace(".", "");
  return [
    "--only-binary=:all:",
    "--implementation", "cp",
    "--python-version", version,
    "--abi", `cp${tag}`, "--abi", "abi3", "--abi", "none",
    ...platforms.flatMap((p) => ["--platform", p]),
  ];
}

mkdirSync(join(bundle, "native"), { recursive: true });
const work = mkdtempSync(join(tmpdir(), "cudaport-bundle-"));
try {
  // 1. The cudaport wheel, built from this checkout (it carries rules/ as cudaport/_rules).
  pip(["wheel", "--no-deps", "-w", work, repoRoot]);
  const wheel = readdirSync(work).find((name) => name.startsWith("cudaport-") && name.endsWith(".whl"));
  if (!wheel) {
    throw new Error("building the cudaport wheel produced no .whl");
  }
  // 2. Wheels for every dependency: a grammar that PyPI has only as an sdist (tree-sitter-cmake) is built here, as
  //    the abi3 wheel its setup.py declares, tagged for this machine's platform (linux_x86_64).
  const wheels = join(work, "wheels");
  pip(["wheel", "-w", wheels, join(work, wheel)]);
  // 3. cudaport and everything it needs, resolved for the oldest supported Python (so tomli and exceptiongroup,
  //    needed before 3.11, are in; they do nothing on newer Pythons).
  const libs = join(bundle, "libs");
  // pip does not evaluate environment markers for --python-version, so the pre-3.11 backports are named here.
  const install = ["install", "--target", libs, "--find-links", wheels, ...platformArgs(versions[0]), "--platform", "linux_x86_64"];
  pip([...install, join(work, wheel), "tomli", "exceptiongroup"]);
  // 4. tree-sitter's core binding is per Python version: move the 3.10 one aside, fetch the others.
  const coreNames = readdirSync(libs).filter((n) => n === "tree_sitter" || /^tree_sitter-[\d.]+\.dist-info$/.test(n));
  const coreInfo = coreNames.find((n) => n.endsWith(".dist-info"));
  if (!coreInfo) {
    throw new Error("tree-sitter was not installed into the bundle");
  }
  const coreVersion = coreInfo.replace(/^tree_sitter-/, "").replace(/\.dist-info$/, "");
  for (const version of versions) {
    const folder = join(bundle, "native", `cp${version.replace(".", "")}`);
    if (version === versions[0]) {
      mkdirSync(folder, { recursive: true });
      for (const name of coreNames) {
        renameSync(join(libs, name), join(folder, name));
      }
    } else {
      pip(["install", "--no-deps", "--target", folder, ...platformArgs(version), `tree-sitter==${coreVersion}`]);
    }
  }
  // Nothing the server never imports: scripts and caches.
  for (const junk of ["bin", "__pycache__"]) {
    rmSync(join(libs, junk), { recursive: true, force: true });
  }
  if (!existsSync(join(libs, "cudaport", "_rules", "rules.toml"))) {
    throw new Error("the bundled cudaport carries no rule data");
  }
  rmSync(destination, { recursive: true, force: true });
  renameSync(bundle, destination);
  console.log(`bundled cudaport, its dependencies and tree-sitter ${coreVersion} for Python ${versions.join(", ")}`);
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(bundle, { recursive: true, force: true });
}
