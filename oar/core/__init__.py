"""The bottom layer: dtypes and Paddle's promotion rules, the per-thread modes (eager/static, grad recording,
auto_cast), the random generator and device choice, safe file reading and writing, and the empty base class of the
Tensor methods. It imports nothing else of oar."""
