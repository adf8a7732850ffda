"""Optional packages Gradio imports on every event update, remembered as absent when they are not installed.

Gradio 6 wraps each call of an event's function (each update a streamed turn yields) in a context that
imports matplotlib to switch its plotting backend, and again to switch it back. Python caches a module
that loaded, not one that failed to: without matplotlib (the app does not need it; only the benchmark's
plot does) every update searched ``sys.path`` twice, ~5% of the UI path's CPU under load (py-spy at 4
streams: 99 of 1,867 busy samples in ``importlib``'s path finder under ``MatplotlibBackendMananger``).

``None`` in ``sys.modules`` is Python's own mark for "this import fails": the same ImportError Gradio
already expects, raised at once. A package that is installed is left alone.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

GRADIO_OPTIONAL = ("matplotlib",)


def remember_absent(
    names: Iterable[str] = GRADIO_OPTIONAL,
    *,
    find_spec: Callable[[str], Any] = importlib.util.find_spec,
    modules: MutableMapping[str, Any] = sys.modules,
) -> list[str]:
    """Mark each of ``names`` that cannot be imported as absent; returns those marked."""
    marked = []
    for name in names:
        if name not in modules and find_spec(name) is None:
            modules[name] = None
            marked.append(name)
    return marked
