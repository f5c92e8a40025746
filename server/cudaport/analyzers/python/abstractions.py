"""The CUDA side of a device abstraction: a class naming CUDA (`CUDA_Accelerator`), or a file (`cuda_accelerator.py`),
whose sibling files or the module's other classes are the sides of other devices. With a side for the target, the
CUDA side runs elsewhere; with sides for other accelerators only, the target needs a side of its own."""

from __future__ import annotations

from tree_sitter import Node

from ...i18n import t
from ..common.syntax import text
from .portedknowledge import words_of
from .reviewedfile import ReviewedFile


class DeviceAbstractions:
    """The device abstractions one file is a side of, the devices of its siblings worked out once."""

    def __init__(self, file: ReviewedFile) -> None:
        self.file = file
        self._siblings: set[str] | None = None
        self._module_classes: set[str] | None = None

    def class_side(self, class_node: Node) -> str | None:
        """A class naming CUDA (`CUDA_Accelerator`) whose file or module has a sibling for the target
        (`npu_accelerator.py`, `class NPUAccelerator`): the CUDA side of a device abstraction."""
        devices = self._class_side_devices(class_node)
        if devices is not None and devices & self.file.target_devices:
            return self._side_exists(text(class_node.child_by_field_name("name") or class_node))
        return None

    def file_side(self) -> str | None:
        """The file itself is the CUDA side of a device abstraction (`cuda_accelerator.py` beside
        `npu_accelerator.py`)."""
        devices = self._file_side_devices()
        if devices is not None and self.file.label in devices:
            assert self.file.path is not None
            return self._side_exists(self.file.path.name)
        return None

    def missing_side(self, node: Node) -> str | None:
        """The CUDA side of a device abstraction whose other sides are accelerators but not the target."""
        current: Node | None = node
        while current is not None:
            devices = self._class_side_devices(current) if current.type == "class_definition" else None
            name = current.child_by_field_name("name") if devices is not None else None
            missing = self._side_missing(text(name), devices) if name is not None and devices is not None else None
            if missing is not None:
                return missing
            current = current.parent
        devices = self._file_side_devices()
        if devices is not None and self.file.path is not None:
            return self._side_missing(self.file.path.name, devices)
        return None

    def _class_side_devices(self, class_node: Node) -> set[str] | None:
        """For a class naming CUDA, the devices its sibling files and the module's other classes name; None for
        any other class, and on a target whose device is "cuda" (HIP: the CUDA side is the target's side)."""
        name = class_node.child_by_field_name("name")
        if self.file.label == "cuda" or name is None or b"cuda" not in words_of(text(name).encode()):
            return None
        return self._sibling_devices() | self._module_class_devices()

    def _file_side_devices(self) -> set[str] | None:
        """For a file naming CUDA (`cuda_accelerator.py`), the devices its sibling files name; else None."""
        path = self.file.path
        if self.file.label == "cuda" or path is None or b"cuda" not in words_of(path.stem.encode()):
            return None
        return self._sibling_devices()

    def _side_exists(self, name: str) -> str:
        return t(
            "`{name}` is the CUDA side of a device abstraction whose {device} side exists, so {platform} runs that one",
            name=name,
            device=self.file.label,
            platform=self.file.platform,
        )

    def _side_missing(self, name: str, devices: set[str]) -> str | None:
        others = self.file.other_accelerators(devices)
        if not others:
            return None
        return t(
            "`{name}` is the CUDA side of a device abstraction with {devices} sides: add a {device} side beside it "
            "rather than rewrite this one",
            name=name,
            devices=", ".join(others),
            device=self.file.label,
        )

    def _sibling_devices(self) -> set[str]:
        """Device types named by the files beside this one (`npu_accelerator.py` names npu)."""
        if self._siblings is None:
            self._siblings = set()
            path = self.file.path
            if path is not None:
                try:
                    names = [p.stem for p in path.parent.iterdir() if p.suffix == ".py" and p != path]
                except OSError:
                    names = []
                for stem in names:
                    self._siblings |= {w.decode() for w in words_of(stem.encode())} & self.file.know.device_types
        return self._siblings

    def _module_class_devices(self) -> set[str]:
        """Device types named by the module's top-level classes (`class NPUAccelerator`), worked out once."""
        if self._module_classes is None:
            self._module_classes = set()
            device_types = self.file.know.device_types
            for node in self.file.root.named_children:
                name = node.child_by_field_name("name") if node.type == "class_definition" else None
                if name is not None:
                    self._module_classes |= {w.decode() for w in words_of(text(name).encode())} & device_types
        return self._module_classes
