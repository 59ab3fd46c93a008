"""
Predictions saved to a file
===========================

Deep networks are trained elsewhere; what reaches the comparison is a file
of predictions. Here two networks' class probabilities for 20,000 test
images of 10 classes are simulated, saved as Parquet (and CSV) in a
temporary directory, read back with pandas, and compared. The comparison
of 20,000 records takes milliseconds.
"""

# %%
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sklearn_precision_stats import compare_precision, compare_recall

rng = np.random.default_rng(0)
n, n_classes = 20_000, 10
y = rng.integers(0, n_classes, n)


def softmax_outputs(skill):
    """Probabilities of a network that puts `skill` extra logit on the truth."""
    logits = rng.normal(size=(n, n_classes))
    logits[np.arange(n), y] += skill
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


probs = {"resnet": softmax_outputs(2.6), "vit": softmax_outputs(2.8)}
frame = pd.DataFrame({"image_id": np.arange(n), "label": y})
for name, p in probs.items():
    frame[name] = p.argmax(axis=1)  # predicted labels, not probabilities
    frame[f"{name}_max_prob"] = p.max(axis=1)

# %%
# Save and read back
# ------------------
# Parquet keeps the column types; CSV works the same way with
# ``pd.read_csv``.
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "test_predictions.parquet"
    frame.to_parquet(path, index=False)
    frame.to_csv(Path(tmp) / "test_predictions.csv", index=False)
    saved = pd.read_parquet(path)
print(saved.head().to_string())

# %%
# Compare
# -------
start = time.perf_counter()
result = compare_precision(saved["label"], {"resnet": saved["resnet"], "vit": saved["vit"]})
print(f"{len(saved)} records compared in {1000 * (time.perf_counter() - start):.1f} ms")
print(result.table[["class", "precision", "precision_reference", "ratio", "gs_pvalue"]].to_string())

# %%
# Recall from the same file:
recall = compare_recall(saved["label"], {"resnet": saved["resnet"], "vit": saved["vit"]})
print(recall.table[["class", "recall", "recall_reference", "gs_pvalue"]].to_string())

# %%
# The relative precision ViT / ResNet per class.
ax = result.plot()
