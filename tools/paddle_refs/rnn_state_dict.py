"""Writes tests/nn/rnn_state_dict_ref.json: the state_dict keys and shapes of Paddle's SimpleRNN / LSTM / GRU for
the configurations in CONFIGS (the same ones tests/nn/test_rnn_checkpoint_names.py builds in oar), and
tests/nn/paddle_lstm.pdparams + paddle_lstm_io.npz: a real `paddle.save`d checkpoint of "LSTM-2-bidirect" with an
input and Paddle's output for it.

    /work/paddle_venv/bin/python tools/paddle_refs/rnn_state_dict.py
"""
import json
import pathlib
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = {  # name -> (class, input_size, hidden_size, num_layers, direction)
    "SimpleRNN-1-forward": ("SimpleRNN", 3, 4, 1, "forward"),
    "SimpleRNN-2-bidirect": ("SimpleRNN", 3, 4, 2, "bidirect"),
    "LSTM-1-forward": ("LSTM", 3, 4, 1, "forward"),
    "LSTM-2-bidirect": ("LSTM", 3, 4, 2, "bidirect"),
    "GRU-2-forward": ("GRU", 3, 4, 2, "forward"),
    "GRU-2-bidirect": ("GRU", 3, 4, 2, "bidirect"),
}

if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    import paddle
    out = {"paddle": paddle.__version__, "configs": {}}
    for name, (cls, i, h, n, d) in CONFIGS.items():
        m = getattr(paddle.nn, cls)(i, h, num_layers=n, direction=d)
        out["configs"][name] = [[k, list(v.shape)] for k, v in m.state_dict().items()]
    path = ROOT / "tests" / "nn" / "rnn_state_dict_ref.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    import numpy as np
    paddle.seed(23)
    cls, i, h, n, d = CONFIGS["LSTM-2-bidirect"]
    m = getattr(paddle.nn, cls)(i, h, num_layers=n, direction=d)
    paddle.save(m.state_dict(), str(ROOT / "tests" / "nn" / "paddle_lstm.pdparams"))
    x = np.random.default_rng(23).standard_normal((2, 5, i)).astype("float32")
    y, (hn, cn) = m(paddle.to_tensor(x))
    np.savez(ROOT / "tests" / "nn" / "paddle_lstm_io.npz", x=x, y=y.numpy(), h=hn.numpy(), c=cn.numpy())
    print(f"wrote {path} and the LSTM checkpoint")
