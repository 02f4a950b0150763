"""Array kernels on NumPy arrays (no autograd, no Tensors): the compute layer under the op registry."""
