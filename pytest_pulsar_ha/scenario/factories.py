"""``provider: {kind: custom, factory: "package.module:function"}``: finding the user's factory, and what it gets.

A reference is checked when the scenario file is collected, before any cluster starts: its form, that the
module imports, that the name exists and is callable, and, when the function declares its return type, that
the type is a ``pulsar.ServiceInfoProvider``. The factory is called when the scenario runs, with a
:class:`ProviderContext` (the environment's endpoints, the scenario's primary and ``args``); what it returns is
checked again then.
"""

from __future__ import annotations

import importlib
import inspect
import re
import threading
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

FACTORY_FORM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
EXAMPLE = "mypackage.failover:build_provider"


class FactoryError(Exception):
    """A factory reference that cannot be used; the text says why and what to do."""


@dataclass(frozen=True)
class ClusterInfo:
    """One cluster as a client reaches it (through its client proxy, so faults apply)."""

    name: str
    service_url: str
    admin_url: str
    token: str | None = None


@dataclass
class ProviderContext:
    """What a custom provider's factory gets."""

    clusters: Mapping[str, ClusterInfo]
    """every cluster of the scenario, by name"""
    primary: str
    """the cluster clients are expected to start on (the scenario's `provider.primary`)"""
    args: Mapping[str, Any]
    """the scenario's `provider.args`"""
    _switched: Callable[[str, str], None] = field(default=lambda to, reason: None, repr=False)

    def switched(self, to_cluster: str, reason: str = "") -> None:
        """Tell the history that the provider switched clients to ``to_cluster`` (optional: the switch checks
        judge from which cluster acknowledged the sends, never from this)."""
        self._switched(to_cluster, reason)


_lock = threading.Lock()


def resolve_factory(reference: str) -> Callable[..., Any]:
    """The callable ``reference`` names; FactoryError saying why not."""
    if not isinstance(reference, str) or not FACTORY_FORM.match(reference):
        raise FactoryError(f"expected 'package.module:function', e.g. {EXAMPLE!r}, found {reference!r}")
    module_name, name = reference.split(":")
    with _lock:  # imports of user code, once
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                raise FactoryError(
                    f"module {module_name!r} is not found: make it importable from where pytest runs (install "
                    "its package, or put it under the rootdir with an __init__.py, or add its folder to "
                    "pytest's `pythonpath` ini option)"
                ) from None
            raise FactoryError(f"importing {module_name!r} failed: {exc}") from None
        except Exception as exc:
            raise FactoryError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    target = getattr(module, name, None)
    if target is None:
        public = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))[:8]
        hint = f"; callables there: {', '.join(public)}" if public else ""
        raise FactoryError(f"module {module_name!r} has no {name!r}{hint}")
    if not callable(target):
        raise FactoryError(f"{reference} is a {type(target).__name__}, not a function (a factory is called)")
    _check_signature(reference, target)
    _check_declared_return(reference, target)
    return typing.cast(Callable[..., Any], target)


def _check_signature(reference: str, target: Callable[..., Any]) -> None:
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(object())
    except TypeError:
        raise FactoryError(
            f"{reference}{signature} cannot be called with one argument (the ProviderContext); "
            "write it as `def factory(context): ...`"
        ) from None


def _check_declared_return(reference: str, target: Callable[..., Any]) -> None:
    try:
        declared = typing.get_type_hints(target).get("return")
    except Exception:  # annotations that do not resolve: checked when called
        return
    if declared is None or not inspect.isclass(declared):
        return
    import pulsar  # only for files that use a custom provider with a declared return type

    if not issubclass(declared, pulsar.ServiceInfoProvider):
        raise FactoryError(
            f"{reference} declares that it returns {declared.__module__}.{declared.__qualname__}, which is not a "
            "pulsar.ServiceInfoProvider (pulsar-client >= 3.11)"
        )


def check_returned(reference: str, value: Any) -> Any:
    """What the factory returned, if it is a ``pulsar.ServiceInfoProvider``; FactoryError otherwise."""
    import pulsar

    if not isinstance(value, pulsar.ServiceInfoProvider):
        raise FactoryError(
            f"{reference} returned {type(value).__module__}.{type(value).__qualname__}, not a "
            "pulsar.ServiceInfoProvider (subclass it and implement initialize/close, pulsar-client >= 3.11)"
        )
    return value
