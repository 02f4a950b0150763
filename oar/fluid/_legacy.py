"""The error raised for a ``paddle.fluid`` name oar does not provide."""


def missing(module, name, moved):
    """An AttributeError naming the Paddle 2.x replacement of ``module.name`` (from ``moved``) when known.

    Example:
        >>> from oar.fluid._legacy import missing
        >>> print(missing("paddle.fluid", "enable_dygraph", {"enable_dygraph": "paddle.disable_static"}))
        paddle.fluid.enable_dygraph is Paddle 1.x API that oar does not provide; in Paddle 2.x use paddle.disable_static
    """
    if name.startswith("__"):
        return AttributeError(name)
    hint = moved.get(name)
    where = (f"in Paddle 2.x use {hint}" if hint else
             "use the Paddle 2.x API under paddle.* (see Paddle's 1.8 -> 2.0 API mapping)")
    return AttributeError(f"{module}.{name} is Paddle 1.x API that oar does not provide; {where}")
