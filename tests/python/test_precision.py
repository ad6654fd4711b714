"""precision="full"|"tf32"|"bf16" (issue 10) as an estimator parameter:
it reaches the engine (the scores move, the accuracy stays), it is part
of get_params, and a pickled model keeps it."""
import pickle

import numpy as np

import fsvc


def test_precision_parameter(fashion):
    X, y, Xt, yt = fashion
    full = fsvc.FSVCClassifier().fit(X, y)
    bf = fsvc.FSVCClassifier(precision="bf16").fit(X, y)
    assert bf.get_params()["precision"] == "bf16"
    assert full.get_params()["precision"] == "full"
    d_full, d_bf = full.decision_function(Xt), bf.decision_function(Xt)
    assert not np.array_equal(d_full, d_bf)  # the rounding is applied
    assert bf.score(Xt, yt) > full.score(Xt, yt) - 0.03
    again = pickle.loads(pickle.dumps(bf))
    np.testing.assert_array_equal(again.decision_function(Xt), d_bf)
