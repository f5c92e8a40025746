import torch


class NpuAccelerator:
    name = "npu"

    def synchronize(self) -> None:
        torch.npu.synchronize()
