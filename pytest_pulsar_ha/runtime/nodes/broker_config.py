"""Render a Pulsar broker/standalone configuration file: a template with settings replaced or appended."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def render_config(template: str, settings: Mapping[str, str]) -> str:
    """Replace ``key=value`` lines of ``template`` for keys in ``settings``; append keys it lacks."""
    remaining = dict(settings)
    out = []
    for line in template.splitlines():
        key = line.split("=", 1)[0].strip() if "=" in line and not line.lstrip().startswith("#") else None
        if key is not None and key in remaining:
            out.append(f"{key}={remaining.pop(key)}")
        else:
            out.append(line)
    if remaining:
        out.append("")
        out.append("# added by pytest-pulsar-ha")
        out.extend(f"{key}={value}" for key, value in remaining.items())
    return "\n".join(out) + "\n"


def write_config(template_path: Path, target: Path, settings: Mapping[str, str]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_config(template_path.read_text(), settings))
