"""precision="full"|"tf32"|"bf16" (issue 10) and pcg_h="auto"|"f32"|"bf16"|
"f16" (issue 24) as estimator parameters: they reach the engine (the scores
move, the accuracy stays; auto is f16 at the default lambda), they are part
of get_params, and a pickled model keeps them."""
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


def test_pcg_h_parameter(fashion):
    X, y, Xt, yt = fashion
    kw = dict(solver="pcg", probability=False)
    auto = fsvc.FSVCClassifier(**kw).fit(X, y)
    f16 = fsvc.FSVCClassifier(pcg_h="f16", **kw).fit(X, y)
    f32 = fsvc.FSVCClassifier(pcg_h="f32", **kw).fit(X, y)
    bf = fsvc.FSVCClassifier(pcg_h="bf16", **kw).fit(X, y)
    assert bf.get_params()["pcg_h"] == "bf16"
    assert auto.get_params()["pcg_h"] == "auto"
    np.testing.assert_array_equal(auto.decision_function(Xt), f16.decision_function(Xt))
    assert not np.array_equal(f16.decision_function(Xt), f32.decision_function(Xt))
    assert f16.score(Xt, yt) > f32.score(Xt, yt) - 0.01
    d_f32, d_bf = f32.decision_function(Xt), bf.decision_function(Xt)
    assert not np.array_equal(d_f32, d_bf)  # the cached H is rounded
    assert bf.score(Xt, yt) > f32.score(Xt, yt) - 0.03
    again = pickle.loads(pickle.dumps(bf))
    np.testing.assert_array_equal(again.decision_function(Xt), d_bf)
