"""The source of a lambda passed directly to `to_static`: found on its line (and the lines after it) by
parsing the text from each `lambda` keyword, picking the one whose arguments and column match the code
object, and turned into ``def <lambda>(args): return body`` for the conversion steps.

Example:
    >>> tree = lambda_function_def(lambda x: x * 2 if x.sum() > 0 else x, ConversionError)
    >>> ast.unparse(tree)      # 'def __oar_lambda(x):\n    return x * 2 if x.sum() > 0 else x'
"""
import ast
import io
import linecache
import tokenize

MAX_LINES = 40


def _args_names(a):
    names = [x.arg for x in a.posonlyargs + a.args] + (["*" + a.vararg.arg] if a.vararg else [])
    names += [x.arg for x in a.kwonlyargs] + (["**" + a.kwarg.arg] if a.kwarg else [])
    return names


def _code_args(code):
    n = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:code.co_argcount])
    i = n
    if code.co_flags & 0x04:  # *args
        names.append("*" + code.co_varnames[i])
        i += 1
    names += list(code.co_varnames[code.co_argcount:n])
    if code.co_flags & 0x08:  # **kwargs
        names.append("**" + code.co_varnames[i])
    return names


def _candidates(text):
    """(column, Lambda node) for every `lambda` keyword on the first line of `text` that parses."""
    out = []
    first_len = len(text.split("\n", 1)[0])
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        toks = []
        col = text.find("lambda")
        while 0 <= col < first_len:
            toks.append(tokenize.TokenInfo(tokenize.NAME, "lambda", (1, col), (1, col + 6), ""))
            col = text.find("lambda", col + 1)
    for t in toks:
        if t.type != tokenize.NAME or t.string != "lambda" or t.start[0] != 1:
            continue
        rest = text[t.start[1]:]
        node = _longest_lambda(rest)
        if node is not None:
            out.append((t.start[1], node))
    return out


def _longest_lambda(rest):
    """The Lambda node of the longest prefix of `rest` that parses as one lambda expression."""
    for end in range(len(rest), 5, -1):
        if rest[end - 1] in " \t\n,)]}":  # cut only before a delimiter: a prefix of a name is not the lambda
            pass
        elif end != len(rest) and rest[end] not in " \t\n,)]}:;#":
            continue
        try:
            tree = ast.parse("(" + rest[:end] + "\n)", mode="eval")
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            return tree.body
    return None


def lambda_function_def(fn, error):
    """A Module holding ``def __oar_lambda(args): return body`` with the lambda's line numbers."""
    code = fn.__code__
    first = code.co_firstlineno
    lines = [linecache.getline(code.co_filename, first + k) for k in range(MAX_LINES)]
    if not lines[0]:
        raise error(f"no source code for the lambda at {code.co_filename}:{first} (defined outside a file?); "
                    "it runs eagerly")
    text = "".join(lines)
    want = _code_args(code)
    found = [(col, node) for col, node in _candidates(text) if _args_names(node.args) == want]
    if len(found) > 1:  # several lambdas with these arguments on the line: the one holding the code's columns
        pos = [(p[0], p[2]) for p in code.co_positions() if p[0] is not None and p[2] is not None]

        def inside(col0, node):  # how many of the code's instruction positions lie in this lambda's body
            b = node.body
            at = lambda ln, c: (ln, c - 1 + col0 if ln == 1 else c)  # noqa: E731  (parsed as "(" + text[col0:])
            start, end = at(b.lineno, b.col_offset), at(b.end_lineno, b.end_col_offset)
            return sum(start <= (ln - first + 1, col) < end for ln, col in pos)
        best = max(inside(*f) for f in found)
        found = [f for f in found if inside(*f) == best]
    if len(found) != 1:
        raise error(f"cannot find the source of the lambda at {code.co_filename}:{first} "
                    f"({'no' if not found else 'several'} matching lambdas on that line); it runs eagerly")
    node = found[0][1]
    args = node.args
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)  # the function keeps its own defaults
    ret = ast.Return(node.body)
    fdef = ast.FunctionDef(name="__oar_lambda", args=args, body=[ret], decorator_list=[], returns=None,
                           type_comment=None)
    ast.copy_location(ret, node.body)
    ast.copy_location(fdef, node)
    module = ast.Module(body=[fdef], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, first - 1)
    return module
