"""`oar.metric`: evaluation metrics (Paddle 2.x): the functional `accuracy` and the stateful `Metric` classes
that `oar.Model` updates batch by batch."""
from .metrics import Metric, Accuracy, accuracy, Precision, Recall, Auc

__all__ = ["Metric", "Accuracy", "accuracy", "Precision", "Recall", "Auc"]
