"""The distributed core of the package (named like a build folder, but it is source)."""
