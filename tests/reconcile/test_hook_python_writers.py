"""`labledger hook` against the writers, launchers, folder changes and names of real training
programs, through the real console script (the policy is `test_hook_python_writes`'s: a write
onto a file of the ledger, of a capsule whose stored copy does not verify or of an export root
is refused; a new file, an append and a computed path pass).

* Folder savers: a Hugging Face model's ``save_pretrained(DIR)`` writes ``config.json`` and
  ``model.safetensors`` into DIR, replacing those there, and deletes the stale weight shards
  of a previous save there (transformers ``PreTrainedModel.save_pretrained(save_directory)``,
  ``CONFIG_NAME``/``SAFE_WEIGHTS_NAME``: "Clean the folder from a previous save"); a
  tokenizer's writes its ``tokenizer_config.json`` there, a ``Trainer.save_model(output_dir)``
  both (public code: PerryLee69/Hyperledger-Fabric-Smart-Contracts-Developer
  ``crawler/save_model.py`` saves model and tokenizer to one ``output_dir``); accelerate's
  ``Accelerator.save_state(output_dir)`` and datasets' ``Dataset.save_to_disk(dataset_path)``
  write their files into a folder too. Saving over an
  existing folder or file of a protected one is refused; into a new one passes.
* ``h5py.File(P, "w"|"a"|"r+")`` (h5py 3: ``a`` changes the file in place, ``w-``/``x`` only
  create; default ``r``), ``sqlite3.connect(P)`` (opens the database read-write: its
  statements change it in place; a ``mode=ro`` URI reads).
* ``os.chdir(LITERAL)`` in a program's straight-line code: a relative write after it is from
  that folder; a name bound more than once is read at a write in the module's straight-line
  code as the binding in effect there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile.test_hook_python_writes import _heredoc, _inline, box  # noqa: F401
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes


def _refused_over_c2(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "the capsule" in result.stderr, result.stderr
    assert "c2" in result.stderr, result.stderr


# 1: writers ------------------------------------------------------------------------------------
_HF = "from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer\n" \
      "model = AutoModelForCausalLM.from_pretrained('gpt2')\n" \
      "tokenizer = AutoTokenizer.from_pretrained('gpt2')\n"


@pytest.mark.parametrize("program", [
    _HF + "model.save_pretrained('capsules/c2')",
    _HF + "tokenizer.save_pretrained('capsules/c2')",
    _HF + "model.save_pretrained(save_directory='capsules/c2', safe_serialization=True)",
    _HF + "trainer = Trainer(model=model)\ntrainer.save_model('capsules/c2')",
    _HF + "trainer = Trainer(model=model)\ntrainer.save_model(output_dir='results/r1')",
    "from accelerate import Accelerator\naccelerator = Accelerator()\n"
    "accelerator.save_state('capsules/c2')",
    "from datasets import load_dataset\nds = load_dataset('mnist')\nds.save_to_disk('capsules/c2')",
    "import h5py\nwith h5py.File('capsules/c2/emb.npy', 'w') as f:\n    f['x'] = [1]",
    "import h5py\nf = h5py.File('capsules/c2/emb.npy', 'a')",
    "import h5py\nf = h5py.File('capsules/c2/emb.npy', mode='r+')",
    "import sqlite3\ncon = sqlite3.connect('capsules/c2/metrics.csv')\n"
    "con.execute('DELETE FROM t')",
    "import sqlite3 as sq\nsq.connect(database='capsules/c2/metrics.csv')",
])
def test_a_saver_into_a_folder_and_a_database_opened_write(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    command = _heredoc(program)
    result = hook(command)
    assert_blocked(result, command)
    assert "capsules" in result.stderr or "an export root" in result.stderr, result.stderr


@pytest.mark.parametrize("program", [
    # a new folder or file: nothing there is lost
    _HF + "model.save_pretrained('capsules/c2/hf')",
    _HF + "model.save_pretrained('runs/exp1')",
    _HF + "trainer = Trainer(model=model)\ntrainer.save_model('capsules/c3')",
    "import h5py\nh5py.File('capsules/c2/new.h5', 'w')",
    "import h5py\nh5py.File('capsules/c2/emb.npy')",
    "import h5py\nh5py.File('capsules/c2/emb.npy', 'r')",
    "import h5py\nh5py.File('capsules/c2/emb.npy', 'x')",
    "import sqlite3\nsqlite3.connect('capsules/c2/new.db')",
    "import sqlite3\nsqlite3.connect('file:capsules/c2/metrics.csv?mode=ro', uri=True)",
    "import sqlite3\nsqlite3.connect(':memory:')",
    # a verified capsule: the store keeps its bytes
    _HF + "model.save_pretrained('capsules/c1')",
])
def test_a_saver_into_a_new_folder_or_a_read_passes(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    command = _heredoc(program)
    assert_passes(hook(command), command)


def test_the_reason_says_the_folder_is_saved_over(
        hook: Callable[..., Any], box: Path) -> None:  # noqa: F811
    result = hook(_inline(_HF + "model.save_pretrained('capsules/c2')"))
    assert f"saves over capsules/c2 in the capsule {box / 'capsules' / 'c2'}" in result.stderr, \
        result.stderr


# the writers of everyday scripts already read (numpy 1.26 savez/savetxt; pandas 2.2 to_parquet/
# to_json; json.dump and pickle.dump into open(P, "w"|"wb"); PIL Image.save(fp); matplotlib
# pyplot.savefig(fname); joblib 1.4 dump(value, filename); safetensors save_file(tensors,
# filename)): kept
@pytest.mark.parametrize("program", [
    "import numpy as np\nnp.savez('capsules/c2/emb', a=np.zeros(2))",  # emb.npz
    "import numpy as np\nnp.savetxt('capsules/c2/metrics.csv', np.zeros(2))",
    "import pandas as pd\npd.DataFrame({'a': [1]}).to_parquet('capsules/c2/metrics.csv')",
    "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\ndf.to_json('capsules/c2/metrics.json')",
    "import json\njson.dump({}, open('capsules/c2/metrics.json', 'w'))",
    "import pickle\npickle.dump({}, open('capsules/c2/ckpt.pt', 'wb'))",
    "from PIL import Image\nim = Image.new('RGB', (1, 1))\nim.save('capsules/c2/emb.npy')",
    "import matplotlib.pyplot as plt\nplt.savefig('capsules/c2/train.log')",
    "import joblib\njoblib.dump({}, 'capsules/c2/ckpt.pt')",
    "from safetensors.torch import save_file\nsave_file({}, 'capsules/c2/ckpt.pt')",
])
def test_everyday_savers_over_a_file_of_an_unsafe_capsule(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    (box / "capsules" / "c2" / "emb.npz").write_bytes(b"PK")
    command = _inline(program)
    _refused_over_c2(hook(command), command)


def test_a_save_of_any_object_outside_the_protected_folders_passes(
        hook: Callable[..., Any], box: Path) -> None:  # noqa: F811
    """``.save(P)`` is read as a write whoever has it (PIL, Keras, a report): only a protected
    file there is judged, so a report saved elsewhere, over a file or not, passes."""
    (box / "report").write_text("old\n")
    for program in ("report = make()\nreport.save('report')", "x.save('new-report')"):
        command = _inline(program)
        assert_passes(hook(command), command)


# 2: os.chdir, a name bound twice ------------------------------------------------------------
@pytest.mark.parametrize("program", [
    "import os\nos.chdir('capsules/c2')\nopen('metrics.json', 'w').write('{}')",
    "import os\nos.chdir('capsules')\nos.chdir('c2')\nopen('metrics.json', 'w')",
    "import os, torch\nos.chdir('capsules/c2')\ntorch.save({}, 'ckpt.pt')",
    # in a function: from any folder the program changes to
    "import os, json\ndef save():\n    json.dump({}, open('metrics.json', 'w'))\n"
    "os.chdir('capsules/c2')\nsave()",
    "import os\nif True:\n    os.chdir('capsules/c2')\nopen('metrics.json', 'w')",
    "import contextlib\nwith contextlib.chdir('capsules/c2'):\n    open('metrics.json', 'w')",
    # the binding in effect at the write
    "p = 'a.txt'\np = 'capsules/c2/metrics.json'\nopen(p, 'w')",
    "from pathlib import Path\nout = Path('runs')\nout = Path('capsules/c2')\n"
    "(out / 'metrics.json').write_text('{}')",
    "import json\ndef main():\n    out = 'runs/tmp'\n    out = 'capsules/c2'\n"
    "    with open(out + '/metrics.json', 'w') as f:\n        json.dump({}, f)\nmain()",
])
def test_a_write_after_a_chdir_or_a_rebinding(hook: Callable[..., Any], box: Path,  # noqa: F811
                                              program: str) -> None:
    command = _heredoc(program)
    _refused_over_c2(hook(command), command)


@pytest.mark.parametrize("program", [
    # the folder changed to holds no such file, or the write is before the change
    "import os\nos.chdir('capsules/c2')\nopen('new.json', 'w')",
    "import os\nopen('metrics.json', 'w')\nos.chdir('capsules/c2')",
    "import os\nos.chdir('capsules/c1')\nopen('metrics.json', 'w')",
    # the binding in effect is elsewhere
    "p = 'capsules/c2/metrics.json'\nprint(open(p).read())\np = 'out.json'\nopen(p, 'w')",
    # a computed folder: its writes are computed, as before
    "import os, sys\nos.chdir(sys.argv[1])\nopen('metrics.json', 'w')",
])
def test_a_write_after_a_chdir_elsewhere_passes(hook: Callable[..., Any], box: Path,  # noqa: F811
                                                program: str) -> None:
    command = _heredoc(program)
    assert_passes(hook(command), command)


@pytest.mark.parametrize(("program", "expected"), [
    ("import os\nos.chdir('a')\nopen('m', 'w')", [("a/m", False)]),
    ("import os\nos.chdir('/abs')\nos.chdir('b')\nopen('m', 'w')", [("/abs/b/m", False)]),
    ("import os\nopen('m', 'w')\nos.chdir('a')", [("m", False)]),
    ("import os\nos.chdir('a')\nopen('/x/m', 'w')", [("/x/m", False)]),
    # in a function: each folder the program may be in
    ("import os\ndef f():\n    open('m', 'w')\nos.chdir('a')\nf()", [("m", False), ("a/m", False)]),
    # not straight-line: any folder above, as before, and each it names
    ("import os\nfor d in ['a']:\n    os.chdir('a')\nopen('m', 'w')",
     [("m", True), ("a/m", True)]),
    ("import os, sys\nos.chdir(sys.argv[1])\nopen('m', 'w')", [("m", True)]),
    ("p = 'a'\np = 'b'\nopen(p, 'w')", [("b", False)]),
    ("p = 'a'\nopen(p, 'w')\np = 'b'", [("a", False)]),
    ("p = 'a'\np = p + '.bak'\nopen(p, 'w')", [("a.bak", False)]),
    ("p = 'a'\nif x:\n    p = 'b'\nopen(p, 'w')", []),
    ("p = 'a'\np = 'b'\ndef f():\n    open(p, 'w')", []),
    # a function's own straight-line code: the binding in effect there
    ("def f():\n    p = 'a'\n    p = 'b'\n    for i in x:\n        open(p, 'w')", [("b", False)]),
    ("def f():\n    p = 'a'\n    for p in x:\n        pass\n    open(p, 'w')", []),
    ("f = lambda: open(p, 'w')\np = 'a'\np = 'b'", []),
])
def test_the_folder_and_binding_in_effect(program: str,
                                          expected: list[tuple[str, bool]]) -> None:
    from labledger.reconcile.python_deletes import python_writes

    assert [(w.path, w.elsewhere) for w in python_writes(program)] == expected


@pytest.mark.parametrize("program", [
    "import wandb\nrun = wandb.init(project='p')\nrun.save('results/r1/best.pth')",
    "import wandb\nrun = wandb.init(project='p')\nrun.save('capsules/c2/*.json', policy='now')",
    "import wandb\nwith wandb.init(project='p') as run:\n    run.save('capsules/c2/ckpt.pt')",
    "import wandb\ndef main():\n    run = wandb.init()\n    run.save('capsules/c2')\nmain()",
    "import swanlab\nrun = swanlab.init(project='p')\nrun.save('capsules/c2/ckpt.pt')",
])
def test_a_tracker_runs_save_uploads_what_it_names(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    """A W&B run's ``save(glob_str, base_path, policy)`` syncs the files it matches to W&B: it
    lists them and links them into the run's own folder (``wandb.run.dir``), writing none of
    them (https://docs.wandb.ai/ja/guides/track/save-restore, /models/ref/python/save);
    SwanLab's ``save`` the same (https://docs.swanlab.cn/en/api/py-save.html). Uploading an
    exported checkpoint or a capsule's metrics is ordinary work, not a save over them."""
    command = _heredoc(program)
    assert_passes(hook(command), command)


@pytest.mark.parametrize("program", [
    # a Trainer saves into its arguments' output_dir: checkpoint-N folders (deleting the oldest
    # past save_total_limit) and, at save_model() with no folder, config.json and the weights
    # over those there (transformers Trainer.save_model(output_dir=None): args.output_dir);
    # TRL's configs are TrainingArguments (public code: TrainingArguments(output_dir=
    # "./results", evaluation_strategy="epoch", num_train_epochs=3), as the docs write it)
    _HF + "from transformers import TrainingArguments\n"
    "args = TrainingArguments(output_dir='capsules/c2', num_train_epochs=3)\n"
    "trainer = Trainer(model=model, args=args)\ntrainer.train()\ntrainer.save_model()",
    "from transformers import Seq2SeqTrainingArguments\nSeq2SeqTrainingArguments('capsules/c2')",
    "from trl import SFTConfig\nconfig = SFTConfig(output_dir='capsules/c2', max_length=512)",
    # `.save(obj, P)`: accelerate Accelerator.save(obj, f) (public code: accelerator.save(
    # unwrapped_model.state_dict(), save_path)), TF1 Saver.save(sess, save_path)
    "from accelerate import Accelerator\naccelerator = Accelerator()\n"
    "accelerator.save(model.state_dict(), 'capsules/c2/ckpt.pt')",
    "from accelerate import Accelerator\naccelerator = Accelerator()\n"
    "accelerator.save(model.state_dict(), f='capsules/c2/ckpt.pt')",
    "import tensorflow as tf\nsaver = tf.compat.v1.train.Saver()\n"
    "saver.save(sess, 'capsules/c2/ckpt.pt')",
    # Lightning's ModelCheckpoint(dirpath) saves epoch=N-step=M.ckpt and last.ckpt into the
    # folder, over a previous run's of those names, and deletes the ones past save_top_k
    # (lightning.pytorch.callbacks.ModelCheckpoint(dirpath=None, filename=None, ...,
    # save_last=None, save_top_k=1); public code: ModelCheckpoint(dirpath="checkpoints/",
    # filename="{epoch}-{val_loss:.2f}", save_top_k=3, monitor="val_loss"))
    "from pytorch_lightning.callbacks import ModelCheckpoint\n"
    "cb = ModelCheckpoint(dirpath='capsules/c2', save_last=True, monitor='val_loss')",
    "import lightning as L\ncb = L.pytorch.callbacks.ModelCheckpoint('capsules/c2')",
    "from lightning.pytorch.callbacks import ModelCheckpoint\n"
    "trainer = Trainer(callbacks=[ModelCheckpoint(dirpath='capsules/c2/', save_top_k=1)])",
    # Keras' ModelCheckpoint(filepath) saves over its file each epoch; a name formatted when it
    # saves ("{epoch:02d}") is some file of the folder before it (keras.callbacks.
    # ModelCheckpoint(filepath, monitor, ..., save_best_only=False))
    "from tensorflow import keras\n"
    "cb = keras.callbacks.ModelCheckpoint('capsules/c2/ckpt.pt', save_best_only=True)",
    "import keras\n"
    "cb = keras.callbacks.ModelCheckpoint(filepath='capsules/c2/w.{epoch:02d}.keras')",
])
def test_a_trainers_output_folder_and_a_save_of_an_object_to_a_path(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    command = _heredoc(program)
    _refused_over_c2(hook(command), command)


@pytest.mark.parametrize("program", [
    _HF + "from transformers import TrainingArguments\n"
    "args = TrainingArguments(output_dir='runs/exp2')\n"
    "trainer = Trainer(model=model, args=args)\ntrainer.train()\ntrainer.save_model()",
    _HF + "from transformers import TrainingArguments\n"
    "args = TrainingArguments(output_dir='capsules/c3')",  # a new folder
    "from transformers import BertConfig\nconfig = BertConfig(30522)",
    "from PIL import Image\nim = Image.new('RGB', (1, 1))\nim.save('capsules/c2/new.png', 'PNG')",
    "from accelerate import Accelerator\naccelerator = Accelerator()\n"
    "accelerator.save(model.state_dict(), 'capsules/c2/new.pt')",
    "from pytorch_lightning.callbacks import ModelCheckpoint\n"
    "cb = ModelCheckpoint(dirpath='runs/exp2/checkpoints', save_last=True)",
    "from lightning.pytorch.callbacks import ModelCheckpoint\ncb = ModelCheckpoint()",
    "from tensorflow import keras\ncb = keras.callbacks.ModelCheckpoint('capsules/c2/new.keras')",
    "import keras\ncb = keras.callbacks.ModelCheckpoint('runs/w.{epoch:02d}.keras')",
    "from my_callbacks import ModelCheckpoint\ncb = ModelCheckpoint('capsules/c2')",  # not known
])
def test_a_trainers_new_output_folder_and_a_new_save_pass(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    command = _heredoc(program)
    assert_passes(hook(command), command)


@pytest.mark.parametrize("program", [
    # a sealed run's database read for its results: SELECTs change no byte of it (SQLite
    # writes the file only for a statement that changes the database)
    "import sqlite3\ncon = sqlite3.connect('capsules/c2/metrics.csv')\n"
    "print(con.execute('SELECT step, loss FROM metrics ORDER BY step').fetchall())",
    "import sqlite3, pandas as pd\ncon = sqlite3.connect('capsules/c2/metrics.csv')\n"
    "df = pd.read_sql_query('select * from trials', con)\nprint(df.describe())",
    "import sqlite3\nwith sqlite3.connect('results/r1/best.pth') as con:\n"
    "    rows = con.execute(\"\"\"\n        WITH t AS (SELECT * FROM runs) SELECT * FROM t\"\"\")",
])
def test_a_database_only_read_passes(hook: Callable[..., Any], box: Path,  # noqa: F811
                                     program: str) -> None:
    command = _heredoc(program)
    assert_passes(hook(command), command)


@pytest.mark.parametrize("program", [
    "import sqlite3\ncon = sqlite3.connect('capsules/c2/metrics.csv')\n"
    "con.execute('SELECT 1')\ncon.execute('UPDATE metrics SET loss = 0')",
    "import sqlite3\ncon = sqlite3.connect('capsules/c2/metrics.csv')\n"
    "con.execute('SELECT 1')\ncon.execute(sql)\ncon.commit()",
    "import sqlite3, pandas as pd\ncon = sqlite3.connect('capsules/c2/metrics.csv')\n"
    "pd.read_sql('SELECT 1', con).to_sql('t', con, if_exists='replace')",
])
def test_a_database_read_and_written_is_refused(
        hook: Callable[..., Any], box: Path, program: str) -> None:  # noqa: F811
    command = _heredoc(program)
    _refused_over_c2(hook(command), command)


def test_a_chdir_naming_its_folder_by_keyword() -> None:
    """``os.chdir(path=P)`` (Python 3.11: os.chdir(path)) changes to P as ``os.chdir(P)``."""
    from labledger.reconcile.python_deletes import python_writes

    program = "import os\nos.chdir(path='capsules/c2')\nopen('metrics.json', 'w')"
    assert [(w.path, w.elsewhere) for w in python_writes(program)] == \
        [("capsules/c2/metrics.json", False)]
