"""cudaport: find, rate and rewrite CUDA dependencies for HIP, Ascend NPU and Cambricon MLU."""

__version__ = "0.1.0"
