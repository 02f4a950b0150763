"""Paddle's docstring examples, read from an installed paddlepaddle wheel's source with `ast` (paddle is never
imported), and the rules that classify and check them.

Facts about Paddle's docstrings this relies on: examples sit in ``.. code-block:: python`` blocks, written as
doctests (``>>>`` / ``...`` prompts, expected output below); directives follow xdoctest, which Paddle's CI uses:
``# doctest: +REQUIRES(env:GPU)`` (also XPU, IPU, CUSTOM_DEVICE, DISTRIBUTED) marks a block that needs that
hardware, ``+SKIP(reason)`` on a line of its own skips the rest of the block (``-SKIP`` ends it), on a statement
only that statement. Functions bound to C++ kernels get their docstring from ``add_doc_and_signature(name, doc,
...)`` calls in ``paddle/_paddle_docs.py``. Paddle's checker compares printed tensors ignoring the place, and floats
to a tolerance; this one also ignores ``stop_gradient=`` (the brief of issue 23) and whitespace.

Usage: python tests/api_coverage/paddle_docstrings.py SITE_PACKAGES  (prints how many examples each namespace has)."""
import ast
import functools
import pathlib
import re
import sys
from typing import NamedTuple

HERE = pathlib.Path(__file__).resolve().parent


class Part(NamedTuple):
    """One statement group of a doctest: its source, the output it expects ('' for none), whether it is skipped."""
    source: str
    want: str
    skip: bool


class Example(NamedTuple):
    namespace: str
    name: str           # the public name, e.g. "paddle.nn.functional.relu"
    index: int          # which code block of that docstring
    parts: tuple        # of Part
    requires: str       # "" or the hardware named by REQUIRES / the reason the example is not CPU-runnable
    timeout: float


# --- reading Paddle's source ------------------------------------------------------------------------------------

class Source:
    """The modules of one installed `paddle` package, parsed on demand."""

    def __init__(self, site):
        self.root = pathlib.Path(site) / "paddle"
        if not (self.root / "__init__.py").exists():
            raise FileNotFoundError(f"no paddle package under {site}")
        self._trees = {}

    def file(self, module):
        base = self.root.parent.joinpath(*module.split("."))
        for f in (base.with_suffix(".py"), base / "__init__.py"):
            if f.exists():
                return f
        return None

    def tree(self, module):
        if module not in self._trees:
            f = self.file(module)
            self._trees[module] = ast.parse(f.read_text(encoding="utf-8")) if f else None
        return self._trees[module]

    @functools.cached_property
    def c_docs(self):
        """{name: docstring} from `add_doc_and_signature` calls (docstrings of C++-bound functions)."""
        out = {}
        tree = self.tree("paddle._paddle_docs")
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "add_doc_and_signature" and \
                    len(node.args) >= 2 and all(isinstance(a, ast.Constant) for a in node.args[:2]):
                out[node.args[0].value] = node.args[1].value
        return out

    def resolve(self, module, name, depth=0):
        """The def node that `module.name` is bound to last (a later ``def`` overrides ``@overload`` stubs),
        following ``from .x import y as name`` chains; a docstring string for names bound to C++ functions
        (``paddle._C_ops``); None when not found or a submodule."""
        tree = self.tree(module)
        if module in ("paddle._C_ops", "paddle._C") or tree is None or depth > 12:
            return self.c_docs.get(name)
        found = None
        for node in _top_level(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.name == name:
                found = node
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and \
                    any(getattr(t, "id", None) == name for t in node.targets) and node.value.id != name:
                found = ("alias", module, node.value.id)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        found = ("import", _absolute(module, node, self.file(module)), alias.name)
        if isinstance(found, tuple):
            kind, target, real = found
            if kind == "import" and self.file(f"{target}.{real}"):
                return None  # a submodule
            return self.resolve(target, real, depth + 1)
        return found

    def docstring(self, namespace, name):
        """The docstring Paddle shows for `namespace.name` (a C++-bound function's from _paddle_docs.py)."""
        module = "paddle.tensor" if namespace == "paddle.Tensor" else namespace
        if namespace in ("paddle", "paddle.Tensor") and name in self.c_docs:
            return self.c_docs[name]
        found = self.resolve(module, name)
        if found is None or isinstance(found, str):
            return found
        return ast.get_docstring(found, clean=True)


def _top_level(tree):
    """Module statements, descending into top-level if/try blocks (conditional imports)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop(0)
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            stack[:0] = node.body + node.orelse + getattr(node, "finalbody", []) + \
                [s for h in getattr(node, "handlers", []) for s in h.body]


def _absolute(module, node, file):
    if not node.level:
        return node.module
    pkg = module.split(".")
    if file is not None and file.name != "__init__.py":
        pkg = pkg[:-1]
    pkg = pkg[:len(pkg) - (node.level - 1)]
    return ".".join(pkg + ([node.module] if node.module else []))


# --- splitting docstrings into examples ---------------------------------------------------------------------------

_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\. code-block::\s*(python|pycon)\s*$", re.M)
_DIRECTIVE = re.compile(r"#\s*doctest:\s*(?P<flags>.*)$")
_NOT_CPU = [  # (pattern in the example's source, why it cannot run on a CPU-only machine without network)
    (r"set_device\(\s*['\"](gpu|xpu|npu)", "selects a GPU/XPU device"),
    (r"CUDAPlace\(|CUDAPinnedPlace\(|XPUPlace\(|IPUPlace\(|CustomPlace\(", "places data on a GPU/XPU/IPU"),
    (r"distributed\.launch|init_parallel_env|fleet\.init|spawn\(", "needs a distributed launch"),
    (r"pretrained\s*=\s*True", "downloads pretrained weights"),
    (r"get_weights_path_from_url|get_path_from_url|download\(|https?://", "needs the network"),
    (r"\b(MNIST|FashionMNIST|Cifar10|Cifar100|Flowers|VOC2012|Imdb|Imikolov|Movielens|UCIHousing|WMT14|WMT16|"
     r"Conll05st|ESC50|TESS)\((?![^)]*(data_file|image_path))", "downloads a data set"),
]


def examples_of(doc):
    """The code blocks of a docstring as lists of Part; blocks written without prompts become one part."""
    out = []
    for m in _BLOCK.finditer(doc):
        indent = len(m.group("indent").expandtabs())
        lines = []
        for line in doc[m.end():].split("\n")[1:]:
            if line.strip() and len(line.expandtabs()) - len(line.expandtabs().lstrip()) <= indent:
                break
            lines.append(line)
        block = _dedent(lines)
        if block.strip():
            out.append(_parts(block))
    return out


def _dedent(lines):
    width = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[width:] for x in lines).strip("\n")


def _parts(block):
    """Doctest parts as xdoctest reads them: ``>>>`` and ``...`` lines are alike, consecutive ones form one part
    (statements split by the parser, not by prompts), the output below belongs to the part; a directive alone on a
    line applies to the rest of the block, one on a statement to that statement alone (made its own part)."""
    lines = block.split("\n")
    if not any(x.lstrip().startswith(">>>") for x in lines):
        return [Part(block + "\n", "", False)], ""
    parts, requires, skipping, chunk, i = [], "", False, [], 0
    starts = []  # where in `chunk` each statement's ">>>" line is

    def flush(want="", skip=None, upto=None):
        upto = len(chunk) if upto is None else upto
        if upto:
            parts.append(Part("\n".join(chunk[:upto]) + "\n", want, skipping if skip is None else skip))
            del chunk[:upto]
            starts[:] = [s - upto for s in starts if s >= upto]

    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.startswith((">>>", "...")):
            want = [line]
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(">>>"):
                want.append(lines[i])
                i += 1
            flush("\n".join(want).strip("\n") if line.strip() else "")
            continue
        code = line[4:]
        d = _DIRECTIVE.search(code)
        alone = d is not None and code.lstrip().startswith("#")
        if d is None or not alone and "SKIP" not in d.group("flags"):
            if line.startswith(">>>"):
                starts.append(len(chunk))
            chunk.append(code)  # no directive, or one that changes no statement's fate (NORMALIZE_WHITESPACE, ...)
            continue
        flags = d.group("flags")
        if alone:  # alone on its line: the rest of the block
            flush()
            hw = set(re.findall(r"env:\s*(\w+)", flags)) - {"CPU"} if "REQUIRES" in flags else set()
            requires = requires or ("requires " + "/".join(sorted(hw)) if hw else "")
            skipping = (skipping or "+SKIP" in flags) and "-SKIP" not in flags
            continue
        # +SKIP on a statement: that statement (from its ">>>" line, with its continuation lines) alone
        if line.startswith(">>>"):
            flush()
        else:
            flush(upto=starts[-1] if starts else 0)
        chunk.append(code)
        while i < len(lines) and lines[i].startswith("..."):
            chunk.append(lines[i][4:])
            i += 1
        want = []
        while i < len(lines) and lines[i].strip() and not lines[i].startswith(">>>"):
            want.append(lines[i])
            i += 1
        flush("\n".join(want), True)
    flush()
    return parts, requires


def collect(site, namespaces):
    """Every example of every public name: [Example]; a definition listed by several namespaces counts once, under
    the first. `namespaces` is {paddle namespace: names}."""
    src = Source(site)
    seen, out = set(), []
    for ns, names in namespaces.items():
        for name in sorted(set(names)):
            doc = src.docstring(ns, name)
            if not doc or doc in seen:
                continue
            seen.add(doc)
            for k, (parts, requires) in enumerate(examples_of(doc)):
                code = "".join(p.source for p in parts)
                if not requires:
                    requires = next((why for pat, why in _NOT_CPU if re.search(pat, code)), "")
                t = re.search(r"\+TIMEOUT\((\d+)\)", code)
                out.append(Example(ns, f"{ns}.{name}", k, tuple(parts), requires, float(t.group(1)) if t else 60.0))
    return out


# --- which printed values can be compared -----------------------------------------------------------------------

# calls whose results come from a random generator (Paddle's and oar's differ, whatever the seed) or that create
# randomly initialised parameters; NumPy's legacy generator is the same in both, so np.random after np.random.seed is
# not random here
_RANDOM = re.compile(
    r"\b(rand|randn|randint|randint_like|rand_like|randn_like|uniform_?|normal_?|standard_normal|randperm|"
    r"multinomial|bernoulli_?|poisson|binomial|exponential_|cauchy_|geometric_|log_normal_?|sample|rsample|shuffle|"
    r"\w*dropout\w*|\w*Dropout\w*|gumbel_softmax|rrelu|RReLU|class_center_sample|"
    r"Linear|Conv\w*|Embedding|LSTM\w*|GRU\w*|SimpleRNN\w*|RNN|BiRNN|\w*RNNCell|MultiHeadAttention|"
    r"Transformer\w*|Bilinear|PReLU|create_parameter|Random\w+|\w*Net\w*|VGG|vgg\w*|resnet\w*|resnext\w*|"
    r"wide_resnet\w*|mobilenet\w*|densenet\w*|shufflenet\w*|squeezenet\w*|googlenet|inception\w*|alexnet|"
    r"AlexNet|SqueezeNet|GoogLeNet|InceptionV3|DenseNet|ShuffleNetV2|DeformConv2D|NCE|HSigmoidLoss|\w*Loss)\s*\(")
_FLOAT_OR_TENSOR = re.compile(r"Tensor\(|\d\.\d*|\de-")


def checkable(parts):
    """Per part: whether its expected output can be compared. After a random call only outputs that show no tensor
    and no float (shapes, dtypes, booleans, ints) still can."""
    out, random = [], False
    for p in parts:
        src = re.sub(r"#.*", "", p.source)
        if "np.random" in src and "np.random.seed" not in src:
            random = random or not any("np.random.seed" in q.source for q in parts[:len(out)])
        random = random or _RANDOM.search(src) is not None
        out.append(bool(p.want.strip()) and not p.skip and not (random and _FLOAT_OR_TENSOR.search(p.want)))
    return out


# --- comparing printed values -----------------------------------------------------------------------------------

_NUM = r"(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf"
_NUMBER = re.compile(rf"[-+]?(?:{_NUM})")
# a complex number as NumPy ("(1-0j)", "0j") or Paddle ("(1.00000000+-0.00000000j)") prints it, spaces removed
_COMPLEX = re.compile(rf"\(?(?P<re>[-+]?(?:{_NUM}))(?P<sign>[-+]{{1,2}})(?P<im>{_NUM})j\)?"
                      rf"|(?<![\w.])(?P<im0>[-+]?(?:{_NUM}))j")
_NOISE = [re.compile(r"place=(Place\([^)]*\)|CPUPlace\(\)|CUDAPlace\(\d*\)|[A-Za-z]+Place\([^)]*\)),?\s*"),
          re.compile(r"stop_gradient=(True|False),?\s*"),
          re.compile(r",\s*dtype=int64(?=\))"),  # NumPy names int64 in a repr only where it is not the platform's int
          re.compile(r"(?<=<class ')[\w.]*\.(?=\w+'>)")]  # a class by its name: paddle.Tensor is oar...Tensor


def _complex(m):
    if m.group("im0") is not None:
        return f"complex(0,{m.group('im0')})"
    sign = "-" if m.group("sign").count("-") % 2 else ""
    return f"complex({m.group('re')},{sign}{m.group('im')})"


def _normalise(text):
    for pat in _NOISE:
        text = pat.sub("", text)
    # whitespace is layout, except between two numbers, where it separates values ("56\n12" is not 5612)
    text = re.sub(r"(?<=[\w.])\s+(?=[-+]?[\d.])", "|", text.strip())
    text = re.sub(r"\s+", "", text)
    text = re.sub(r"paddle\.Size\((\[[^\]]*\])\)", r"\1", text)  # Paddle 3's shape type: a list subclass
    text = _COMPLEX.sub(_complex, text)
    return re.sub(r",\)", ")", text)


def _numbers(text):
    return _NUMBER.split(text), [float(x) for x in _NUMBER.findall(text)]


def output_matches(want, got, rtol=1e-4, atol=1e-5):
    """Whether printed output `got` shows the values of `want`: the text apart from numbers equal after dropping
    place/stop_gradient fields and whitespace, every number within tolerance; ``...`` in `want` matches anything."""
    w, g = _normalise(want), _normalise(got)
    if "..." in w:  # text around the ellipsis literal, numbers to 5 significant digits
        w, g = (_NUMBER.sub(lambda m: format(float(m.group()), ".5g"), x) for x in (w, g))
        return re.fullmatch(".*".join(re.escape(x) for x in w.split("...")), g, re.S) is not None
    (wt, wn), (gt, gn) = _numbers(w), _numbers(g)
    if wt != gt or len(wn) != len(gn):
        return False
    return all(a == b or abs(a - b) <= atol + rtol * abs(a) or (a != a and b != b) for a, b in zip(wn, gn))


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    from report import namespaces as _ns
    exs = collect(sys.argv[1], {ns: names for ns, (_, names) in _ns().items()})
    print(len(exs), "examples;", sum(1 for e in exs if not e.requires), "CPU-runnable")
