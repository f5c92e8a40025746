"""A stand-in for the few PyTorch device APIs the dual-stack tests run (the real wheel is too large for CI).

STUB_ACCELERATORS (comma-separated device types, e.g. "cuda" or "npu") says which devices this machine has; a
vendor package (the torch_npu or torch_mlu stand-in beside this one) registers its device module when imported,
as the real ones do. Only what tests/fixtures/dualstack_py calls is here."""

import os
import types

from . import distributed, nn  # noqa: F401

_AVAILABLE = {name for name in os.environ.get("STUB_ACCELERATORS", "").split(",") if name}


class device:  # PyTorch's spelling
    def __init__(self, type, index=None):
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type={self.type!r})"


class DeviceModule(types.ModuleType):
    """torch.cuda, torch.npu, ...: available when STUB_ACCELERATORS names it."""

    def __init__(self, name):
        super().__init__(f"torch.{name}")
        self.name = name
        self.current = 0

    def is_available(self):
        return self.name == "cpu" or self.name in _AVAILABLE

    def device_count(self):
        return 1 if self.is_available() else 0

    def set_device(self, index):
        self.current = index

    def current_device(self):
        return self.current

    def synchronize(self):
        return None


cuda = DeviceModule("cuda")
cpu = DeviceModule("cpu")
_registered = ["cuda"]  # device types of this build, the accelerator's first: a vendor package appends its own


def register(name):
    """What `import torch_npu` does: torch.npu becomes a device module, the build's accelerator."""
    module = DeviceModule(name)
    globals()[name] = module
    _registered.insert(0, name)
    return module


def get_device_module(device=None):
    if device is None:
        from . import accelerator

        found = accelerator.current_accelerator()
        device = found.type if found is not None else "cpu"
    return globals()[device if isinstance(device, str) else device.type]


from . import accelerator  # noqa: E402, F401  (after the device modules it reads)
