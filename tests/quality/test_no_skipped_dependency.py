"""No test skips for want of a package the project depends on: a broken install must fail, not pass quietly
(``pytest.importorskip`` of pyspark, pyarrow, jsonschema, ... hid one)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORT_NAMES = {"pyyaml": "yaml", "pulsar-client": "pulsar", "types-pyyaml": "yaml", "types-docker": "docker"}


def _dependencies() -> set[str]:
    text = (ROOT / "pyproject.toml").read_text()  # tomllib is 3.11+, the project supports 3.10
    blocks = re.findall(r"^(?:dependencies|dev) = \[(.*?)^\]", text, flags=re.S | re.M)
    specs = [spec for block in blocks for spec in re.findall(r'"([^"]+)"', block)]
    names = {re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower() for spec in specs}
    return {IMPORT_NAMES.get(name, name.replace("-", "_")) for name in names}


def test_no_test_skips_a_dependency_of_the_project() -> None:
    dependencies = _dependencies()
    assert {"pyspark", "pyarrow", "jsonschema", "pulsar", "yaml"} <= dependencies
    found = []
    for path in sorted([*ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*.py")]):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for module in re.findall(r"importorskip\(\s*[\"']([\w.]+)", line):
                if module.split(".")[0] in dependencies:
                    found.append(f"{path.relative_to(ROOT)}:{number}: importorskip({module!r})")
    assert not found, "a dependency of the project is skipped instead of imported:\n" + "\n".join(found)
