"""scikit-learn's own estimator checks (sklearn.utils.estimator_checks) on
both estimators, one pytest case per check. Checks skipped: none (a skip
would be listed here with its reason; a skip is not a pass)."""
from sklearn.utils.estimator_checks import parametrize_with_checks

import fsvc

SKIPPED = {}  # check name -> reason; empty: every check runs


@parametrize_with_checks([fsvc.FSVCClassifier(), fsvc.FSVCRegressor()])
def test_sklearn_check(estimator, check):
    check(estimator)
