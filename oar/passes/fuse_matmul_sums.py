"""Sums of matrix products become one product: ``a_1^T b_1 + ... + a_n^T b_n`` (the weight gradient of a layer
applied at every step of an unrolled loop, accumulated by the backward) becomes ``concat(a)^T concat(b)`` — one
large GEMM instead of n small ones and n - 1 additions.

Needs: an add tree of at least three `matmul(a_i, b_i, transpose_x=True, transpose_y=False)` leaves, 2-D operands
with fully known shapes and equal column counts, float dtype; every leaf and inner sum read only by the tree and
not kept; no op between a leaf and the tree's last add overwrites the leaf's operands.
Guarantees: the same value up to the order of floating-point summation (tests: rtol 1e-5); the root keeps its
name.

Example:
    >>> p = fuse_matmul_sums(program, keep=['w@GRAD'])   # 20 x (matmul + add) -> 2 concat + 1 matmul
"""
from .graph import arg_names, consumers, names_read_inside, out_names, sub_blocks
from .contract import verified


def _leaf(block, op):
    if op.type != "matmul" or op.attrs.get("transpose_x") is not True or op.attrs.get("transpose_y"):
        return False
    vs = [block.vars.get(n) for n in arg_names(op)]
    return all(v is not None and len(v.shape) == 2 and min(v.shape) > 0 and v.dtype.kind == "f" for v in vs)


@verified
def fuse_matmul_sums(program, keep=()):
    """Returns a copy of `program` with each sum of >= 3 transposed products fused into one matmul."""
    p = program.clone()
    gb = p.global_block()
    keep = set(keep)
    readers = consumers(p)
    inner = {n for op in gb.ops if sub_blocks(op) for n in names_read_inside(p, op)}
    producer = {}
    for k, op in enumerate(gb.ops):
        for n in op.output_names():
            producer[n] = k
    leaves_of = {}   # add index -> matmul indices under it; the add's inner adds
    inner_adds = {}
    for k, op in enumerate(gb.ops):
        if op.type != "add" or len(out_names(op)) != 1:
            continue
        leaves, adds, subtrees = [], [], []
        for n in arg_names(op):
            j = producer.get(n)
            private = j is not None and j < k and readers.get(n) == 1 and n not in keep and n not in inner
            if private and j in leaves_of:
                subtrees.append(j)
                leaves += leaves_of[j]
                adds += inner_adds[j] + [j]
            elif private and _leaf(gb, gb.ops[j]):
                leaves.append(j)
            else:
                leaves = None
                break
        if leaves:  # this add extends the trees below it
            for j in subtrees:
                del leaves_of[j], inner_adds[j]
            leaves_of[k], inner_adds[k] = leaves, adds
    replace, drop, fused = {}, set(), 0
    for root, leaves in leaves_of.items():
        ops = [gb.ops[j] for j in leaves]
        shapes = [(gb.vars[arg_names(o)[0]].shape[1], gb.vars[arg_names(o)[1]].shape[1]) for o in ops]
        if len(leaves) < 3 or len(set(shapes)) != 1 or not _stable(gb, leaves, root):
            continue
        replace[root] = _fused(p, gb, ops, gb.ops[root])
        drop.update(leaves)
        drop.update(inner_adds[root])
        fused += len(leaves)
    gone = [n for k in drop for n in gb.ops[k].output_names()]
    new_ops = []
    for k, op in enumerate(gb.ops):
        if k in replace:
            new_ops.extend(replace[k])
        elif k not in drop:
            new_ops.append(op)
    gb.ops = new_ops
    for n in gone:
        gb.vars.pop(n, None)
    p._bump()
    p.provenance.append(f"fuse_matmul_sums: {fused} products in {len(replace)} sums became {len(replace)} matmuls")
    return p


def _stable(block, leaves, root):
    for j in leaves:
        reads = set(arg_names(block.ops[j]))
        if any(reads & set(block.ops[i].output_names()) for i in range(j + 1, root)):
            return False
    return True


def _fused(program, block, leaves, root_op):
    """concat the left and the right operands by rows, then one transposed product into the root's name."""
    lefts = [arg_names(o)[0] for o in leaves]
    rights = [arg_names(o)[1] for o in leaves]
    out = []
    cat = []
    for names in (lefts, rights):
        v0 = block.vars[names[0]]
        rows = sum(block.vars[n].shape[0] for n in names)
        v = block.create_var(program.unique_name("concat.tmp"), [rows, v0.shape[1]], v0.dtype)
        cat.append(v.name)
        out.append(type(root_op)(block, "concat", {"x": names}, {"out": [v.name]}, {"axis": 0}, root_op.loc,
                                 root_op.role))
    out.append(type(root_op)(block, "matmul", {"x": [cat[0]], "y": [cat[1]]}, {"out": out_names(root_op)},
                             {"transpose_x": True, "transpose_y": False}, root_op.loc, root_op.role))
    return out
