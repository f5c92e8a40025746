"""torch.nn: nothing the device selection needs; here so `import torch` has it."""
