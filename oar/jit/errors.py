"""Error mapping for converted functions: an exception raised while converting or running keeps its type and
gets a note naming the user's original file, line and source text (converted code is compiled with the
original file name and line numbers, so the innermost converted frame IS the user's line)."""
import linecache


def user_frame(tb):
    """(file, line, function name) of the innermost traceback frame that runs converted user code."""
    from .convert import is_converted
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if is_converted(code):
            found = (code.co_filename, tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return found


def attach(exc, function_name, phase):
    """Adds (once) a note pointing at the user's line; returns `exc`."""
    if getattr(exc, "_oar_jit_noted", False):
        return exc
    where = user_frame(exc.__traceback__)
    if where is not None:
        fn, line, name = where
        src = linecache.getline(fn, line).strip()
        note = (f"[oar.jit] while {phase} '{function_name}' with to_static:\n  File \"{fn}\", line {line}, in "
                f"{name}\n    {src}")
        try:
            exc.add_note(note)
            exc._oar_jit_noted = True
        except Exception:
            pass
    return exc


def unsupported(construct, instead):
    """An error for a construct that a static program cannot express, naming the user's line."""
    from ..graph.builder import user_location
    from ..graph.variable import StaticValueError
    loc = user_location()
    where = f" at {loc[0]}:{loc[1]}: {loc[2]}" if loc else ""
    return StaticValueError(f"{construct} is not supported inside a function converted by to_static{where}. {instead}")
