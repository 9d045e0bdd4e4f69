"""The scan's view of a checkpoint: named tensors read lazily, and the checkpoint holding them
(the readers of :mod:`.container`, :mod:`.gguf` and :mod:`.onnx_model` build them)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Tensor:
    """One named tensor of a checkpoint; ``array()`` maps it (nothing is read until indexed)."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # float16 | bfloat16 | float32 | float64 | complex64 | complex128 | other names
    file: str
    _open: Callable[[], np.ndarray] = field(repr=False)

    @property
    def is_float(self) -> bool:
        return self.dtype in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_complex(self) -> bool:
        return self.dtype in ("complex64", "complex128")

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def array(self) -> np.ndarray:
        return self._open()


@dataclass
class Checkpoint:
    path: str
    format: str  # safetensors | pt | npz
    files: list[str]
    tensors: list[Tensor]
    bytes: int
    config_path: str | None = None  # a config.json beside the checkpoint
    meta: dict | None = None  # a GGUF file's metadata
