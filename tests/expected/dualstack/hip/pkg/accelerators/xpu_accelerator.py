import torch


class XpuAccelerator:
    name = "xpu"

    def synchronize(self) -> None:
        torch.xpu.synchronize()
