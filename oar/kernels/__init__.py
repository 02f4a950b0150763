"""Array kernels on NumPy arrays (no autograd, no Tensors, no registry): the compute layer under the op registry.

One module per op family (`elementwise`, `reduction`, `linalg`, ...); an op file imports its kernels and hands
them to `defop`. Kernels import only `oar.core.dtype` and each other (tests/test_kernels_layer.py)."""
