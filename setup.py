"""Packaging: the spec library (specs/) and the C runtime (runtime/) ship inside the wheel as
package data under aedsl/_resources/, so an installed aedsl finds them (aedsl.resources).
Everything else is declared in pyproject.toml."""
from pathlib import Path

from setuptools import find_namespace_packages, setup

packages = find_namespace_packages(include=["aedsl", "aedsl.*"])
package_dir = {}
for root in ("specs", "runtime"):
    for d in [Path(root)] + sorted(p for p in Path(root).rglob("*") if p.is_dir()):
        name = "aedsl._resources." + ".".join(d.parts)
        packages.append(name)
        package_dir[name] = str(d)
setup(packages=packages, package_dir=package_dir,
      package_data={"": ["*.lark", "*.toml", "*.c", "*.h", "*.j2", "*.ae", "*.s"]})
