"""Writes tests/incubate/incubate_ref.json: what Paddle 3.3.1 returns for the cases tests/incubate/test_incubate.py
runs in oar — LookAhead and ModelAverage over nine SGD steps of a Linear, and the message passing / reindexing /
sampling functions of paddle.geometric.

    /work/paddle_venv/bin/python tools/paddle_refs/incubate_refs.py
"""
import json
import pathlib
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
W0 = [[1.0], [2.0]]
X = [[0, 2, 3], [1, 4, 5], [2, 6, 7]]
SRC, DST = [0, 1, 2, 0], [1, 2, 1, 0]
EDGE = [[1.0], [2.0], [3.0], [4.0]]
ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]
NODES = [0, 8, 1, 2]


def trajectory(paddle, kind):
    """The weight after each of nine steps (ModelAverage: the averaged weight inside apply(), then the weight)."""
    lin = paddle.nn.Linear(2, 1, weight_attr=paddle.nn.initializer.Assign(np.array(W0, "float32")), bias_attr=False)
    sgd = paddle.optimizer.SGD(0.1, parameters=lin.parameters())
    opt = paddle.incubate.LookAhead(sgd, alpha=0.3, k=3) if kind == "lookahead" else None
    avg = paddle.incubate.ModelAverage(0.3, parameters=lin.parameters(), min_average_window=2,
                                       max_average_window=4) if kind == "model_average" else None
    out = []
    for t in range(9):
        x = paddle.to_tensor(np.array([[1.0 + t, -0.5 * t]], "float32"))
        (lin(x) ** 2).sum().backward()
        if opt is not None:
            opt.step()
            opt.clear_grad()
        else:
            sgd.step()
            avg.step()
            with avg.apply():
                out.append(lin.weight.numpy().ravel().tolist())
            sgd.clear_grad()
        out.append(lin.weight.numpy().ravel().tolist())
    return out


def graphs(paddle):
    g = paddle.geometric
    i32 = lambda v: paddle.to_tensor(v, dtype="int32")  # noqa: E731
    i64 = lambda v: paddle.to_tensor(v, dtype="int64")  # noqa: E731
    x = paddle.to_tensor(X, dtype="float32", stop_gradient=False)
    ref = {f"send_u_recv_{r}": g.send_u_recv(x, i32(SRC), i32(DST), reduce_op=r).numpy().tolist()
           for r in ("sum", "mean", "max", "min")}
    g.send_u_recv(x, i32(SRC), i32(DST), reduce_op="max").sum().backward()
    ref["send_u_recv_max_grad"] = x.grad.numpy().tolist()
    ref["send_u_recv_out_size_4"] = g.send_u_recv(x, i32(SRC), i32(DST), out_size=4).numpy().tolist()
    y = paddle.to_tensor(EDGE)
    for m in ("add", "sub", "mul", "div"):
        ref[f"send_ue_recv_{m}_mean"] = g.send_ue_recv(x, y, i32(SRC), i32(DST), m, "mean").numpy().tolist()
    ref["send_uv_mul"] = g.send_uv(x, x, i32(SRC), i32(DST), "mul").numpy().tolist()
    nb, cnt = i64([8, 9, 0, 4, 7, 6, 7]), i32([2, 3, 2])
    ref["reindex_graph"] = [t.numpy().tolist() for t in g.reindex_graph(i64([0, 1, 2]), nb, cnt)]
    ref["reindex_heter_graph"] = [t.numpy().tolist() for t in g.reindex_heter_graph(
        i64([0, 1, 2]), [nb, i64([0, 5, 3])], [cnt, i32([1, 1, 1])])]
    ref["sample_neighbors_all"] = [t.numpy().tolist() for t in g.sample_neighbors(
        i64(ROW), i64(COLPTR), i64(NODES), sample_size=2, eids=paddle.arange(13, dtype="int64"), return_eids=True)]
    return ref


def main():
    warnings.filterwarnings("ignore")
    import paddle
    ref = {"lookahead": trajectory(paddle, "lookahead"), "model_average": trajectory(paddle, "model_average")}
    ref.update(graphs(paddle))
    path = ROOT / "tests" / "incubate" / "incubate_ref.json"
    path.write_text(json.dumps(ref, indent=0) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
