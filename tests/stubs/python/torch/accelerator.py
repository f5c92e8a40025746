"""torch.accelerator (PyTorch 2.6 and later): the accelerator of the build, if the machine has one."""

import torch


def current_accelerator(check_available=False):
    for name in torch._registered:
        module = getattr(torch, name)
        if module.is_available() or not check_available:
            return torch.device(name) if module.is_available() else None
    return None


def is_available():
    return current_accelerator() is not None


def device_count():
    found = current_accelerator()
    return torch.get_device_module(found.type).device_count() if found is not None else 0


def synchronize():
    return None
